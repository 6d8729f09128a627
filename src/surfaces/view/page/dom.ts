/**
 * Element builders. Text always goes in as text (`textContent`, text nodes), never as markup:
 * titles, prompts and diffs come from models and workers, and must not become HTML.
 */
export type Child = Node | string | number | null | undefined | false;

export interface Props {
  readonly class?: string;
  readonly title?: string;
  readonly attrs?: Readonly<Record<string, string>>;
  readonly data?: Readonly<Record<string, string>>;
  readonly on?: {
    readonly [K in keyof HTMLElementEventMap]?: (event: HTMLElementEventMap[K]) => void;
  };
}

export function h<K extends keyof HTMLElementTagNameMap>(
  tag: K,
  props: Props = {},
  ...children: Child[]
): HTMLElementTagNameMap[K] {
  const el = document.createElement(tag);
  if (props.class !== undefined) el.className = props.class;
  if (props.title !== undefined) el.title = props.title;
  for (const [name, value] of Object.entries(props.attrs ?? {})) el.setAttribute(name, value);
  for (const [name, value] of Object.entries(props.data ?? {})) el.dataset[name] = value;
  for (const [type, handler] of Object.entries(props.on ?? {}))
    el.addEventListener(type, handler as EventListener);
  append(el, children);
  return el;
}

const SVG_NS = 'http://www.w3.org/2000/svg';

export function svg<K extends keyof SVGElementTagNameMap>(
  tag: K,
  attrs: Readonly<Record<string, string | number>> = {},
  ...children: Child[]
): SVGElementTagNameMap[K] {
  const el = document.createElementNS(SVG_NS, tag);
  for (const [name, value] of Object.entries(attrs)) el.setAttribute(name, String(value));
  append(el, children);
  return el;
}

function append(el: Element, children: readonly Child[]): void {
  for (const child of children) {
    if (child === null || child === undefined || child === false) continue;
    el.append(typeof child === 'number' ? String(child) : child);
  }
}

/** A link to an external https page (anything else is shown as text), opened without the view's address. */
export function externalLink(url: string | null, text: string): HTMLElement {
  if (url === null || !url.startsWith('https://')) return h('span', {}, text);
  return h('a', { attrs: { href: url, target: '_blank', rel: 'noopener noreferrer' } }, text);
}

/** `text` cut to `max` characters. */
export function shorten(text: string, max: number): string {
  const chars = [...text];
  return chars.length <= max ? text : `${chars.slice(0, max - 1).join('')}…`;
}
