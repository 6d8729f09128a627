import { hierarchy, tree, type HierarchyPointNode } from 'd3-hierarchy';
import { STATUS_COLOURS } from '../../../core/view/display.js';
import type { ViewNode } from '../protocol.js';
import { shorten, svg } from './dom.js';
import type { Store } from './store.js';

const BOX_W = 230;
const BOX_H = 54;
const ROW = 62;
const COL = 270;
const PAD = 16;
/** Characters of a title per line of a box (two lines). */
const LINE = 34;
/** Characters of facts a box's line holds. */
const FACTS = 40;
/** The smallest scale the tree is shrunk to so that it fits its pane's width. */
const MIN_FIT = 0.5;

/**
 * The decomposition tree as SVG, laid out by d3-hierarchy's tidy tree (left to right). Subtrees
 * collapse and expand with the round toggle; clicking a box selects the node.
 */
export class TreeView {
  readonly collapsed = new Set<string>();
  selected: string | null = null;
  /** The zoom a person chose (the − and + buttons); until then the tree is fitted to its pane's width. */
  scale: number | null = null;
  readonly #host: HTMLElement;
  readonly #onSelect: (id: string) => void;
  #store: Store | undefined;

  constructor(host: HTMLElement, onSelect: (id: string) => void) {
    this.#host = host;
    this.#onSelect = onSelect;
    host.addEventListener('click', (event) => {
      const target = event.target as Element;
      const toggle = target.closest('[data-toggle]');
      if (toggle !== null) {
        const id = toggle.getAttribute('data-toggle') ?? '';
        if (this.collapsed.has(id)) this.collapsed.delete(id);
        else this.collapsed.add(id);
        this.render();
        return;
      }
      const node = target.closest('[data-node]');
      if (node !== null) this.#onSelect(node.getAttribute('data-node') ?? '');
    });
    host.addEventListener('keydown', (event) => {
      const node = (event.target as Element).closest('[data-node]');
      if (node !== null && (event.key === 'Enter' || event.key === ' ')) {
        event.preventDefault();
        this.#onSelect(node.getAttribute('data-node') ?? '');
      }
    });
  }

  render(store: Store | undefined = this.#store): void {
    this.#store = store;
    if (store === undefined) return;
    const rootNode = store.nodes.get(store.rootId);
    if (rootNode === undefined) {
      this.#host.replaceChildren();
      return;
    }
    const children = (n: ViewNode): ViewNode[] | null =>
      this.collapsed.has(n.id)
        ? null
        : n.children.map((c) => store.nodes.get(c)).filter((c): c is ViewNode => c !== undefined);
    const layout = tree<ViewNode>().nodeSize([ROW, COL])(hierarchy(rootNode, children));
    const placed = layout.descendants();
    let top = Infinity;
    let bottom = -Infinity;
    let right = 0;
    for (const p of placed) {
      top = Math.min(top, p.x);
      bottom = Math.max(bottom, p.x);
      right = Math.max(right, p.y);
    }
    const width = right + BOX_W + 2 * PAD + 40;
    const height = bottom - top + BOX_H + 2 * PAD;
    const at = (p: HierarchyPointNode<ViewNode>) => ({ x: p.y + PAD, y: p.x - top + PAD });
    const links = svg('g', { class: 'links' });
    for (const link of layout.links()) {
      const s = at(link.source);
      const t = at(link.target);
      const sx = s.x + BOX_W;
      const sy = s.y + BOX_H / 2;
      const ty = t.y + BOX_H / 2;
      const mx = (sx + t.x) / 2;
      links.append(svg('path', { d: `M${sx},${sy}C${mx},${sy} ${mx},${ty} ${t.x},${ty}` }));
    }
    const boxes = svg('g', { class: 'nodes' });
    for (const p of placed) boxes.append(this.#box(p.data, at(p), store));
    // Fitted to the pane's width (deep trees shrink, down to MIN_FIT) until a person zooms.
    const room = this.#host.clientWidth - 2;
    const scale = this.scale ?? (room > 0 ? Math.max(MIN_FIT, Math.min(1, room / width)) : 1);
    const picture = svg(
      'svg',
      {
        width: Math.ceil(width * scale),
        height: Math.ceil(height * scale),
        'data-scale': scale.toFixed(3),
        viewBox: `0 0 ${Math.ceil(width)} ${Math.ceil(height)}`,
        role: 'tree',
        'aria-label': 'Decomposition tree',
      },
      links,
      boxes,
    );
    this.#host.replaceChildren(picture);
  }

  /** Shows a node: its ancestors expanded, selected, scrolled into view. */
  reveal(store: Store, id: string): void {
    for (const a of store.ancestors(id)) this.collapsed.delete(a);
    this.selected = id;
    this.render(store);
    this.#host.querySelector(`[data-node="${CSS.escape(id)}"]`)?.scrollIntoView({
      block: 'center',
      inline: 'center',
    });
  }

  #box(n: ViewNode, at: { x: number; y: number }, store: Store): SVGGElement {
    const [fill, stroke] = STATUS_COLOURS[n.display];
    const flags = Object.values(n.flags).reduce((a, b) => a + b, 0);
    const facts = [
      n.display,
      n.tally,
      n.checks,
      flags > 0 ? `⚑ ${flags}` : null,
      n.sessions.length > 0
        ? `${n.sessions.length} session${n.sessions.length === 1 ? '' : 's'}`
        : null,
    ].filter((f): f is string => f !== null);
    const flagText = Object.entries(n.flags)
      .map(([rule, count]) => `${rule} ×${count}`)
      .join(', ');
    const tooltip = [
      `${n.id}: ${n.title}`,
      `${n.display} (${n.kind})${n.tally === null ? '' : ` · votes ${n.tally}`}`,
      flagText === '' ? null : `red flags: ${flagText}`,
      n.checks,
      n.branch === null ? null : `branch ${n.branch}`,
    ]
      .filter((l): l is string => l !== null)
      .join('\n');
    // Facts that do not fit on one line take two, and the title one (whole in the tooltip).
    const factRows = factLines(facts);
    const lines = factRows.length > 1 ? [shorten(n.title, LINE)] : titleLines(n.title);
    const rows = [...lines, ...factRows];
    const ys = rows.length === 2 ? [22, 40] : [16, 30, 46];
    const group = svg(
      'g',
      {
        class: `node${this.selected === n.id ? ' selected' : ''}`,
        transform: `translate(${at.x},${at.y})`,
        'data-node': n.id,
        'data-display': n.display,
        tabindex: 0,
        role: 'treeitem',
      },
      svg('title', {}, tooltip),
      svg('rect', { class: 'box', width: BOX_W, height: BOX_H, rx: 6, fill, stroke }),
      ...rows.map((row, i) =>
        svg('text', { class: i < lines.length ? 'title' : 'facts', x: 8, y: ys[i] ?? 46 }, row),
      ),
    );
    const kids = n.children.filter((c) => store.nodes.has(c)).length;
    if (kids > 0) {
      const closed = this.collapsed.has(n.id);
      group.append(
        svg(
          'g',
          { class: 'toggle', 'data-toggle': n.id, transform: `translate(${BOX_W},${BOX_H / 2})` },
          svg('title', {}, closed ? `Expand (${kids} children)` : 'Collapse'),
          svg('circle', { r: 9 }),
          svg('text', { x: 0, y: 4 }, closed ? '+' : '−'),
          closed
            ? svg('text', { class: 'count', x: 14, y: 4 }, String(subtreeSize(store, n) - 1))
            : null,
        ),
      );
    }
    return group;
  }
}

function subtreeSize(store: Store, n: ViewNode): number {
  let size = 1;
  for (const c of n.children) {
    const child = store.nodes.get(c);
    if (child !== undefined) size += subtreeSize(store, child);
  }
  return size;
}

/** A title on up to two lines, broken between words where it can; only a longer one is shortened. */
export function titleLines(title: string): string[] {
  const chars = [...title];
  if (chars.length <= LINE) return [title];
  const head = chars.slice(0, LINE + 1).join('');
  const cut = head.lastIndexOf(' ');
  const at = cut > LINE / 2 ? cut : LINE;
  const first = [...title].slice(0, at).join('').trimEnd();
  const rest = [...title].slice(at).join('').trimStart();
  return [first, shorten(rest, LINE)];
}

/**
 * A box's facts, joined by " · ", on one line or, when they do not fit, two: broken between facts
 * where it can, else between words. Only what does not fit on two lines is shortened.
 */
export function factLines(facts: readonly string[]): string[] {
  const text = facts.join(' · ');
  const chars = [...text];
  if (chars.length <= FACTS) return [text];
  const head = chars.slice(0, FACTS + 1).join('');
  const between = head.lastIndexOf(' · ');
  const space = head.lastIndexOf(' ');
  const at = between > FACTS / 2 ? between : space > FACTS / 2 ? space : FACTS;
  const first = [...text].slice(0, at).join('').trimEnd();
  const rest = [...text]
    .slice(at)
    .join('')
    .replace(/^\s*·?\s*/, '');
  return [first, shorten(rest, FACTS)];
}
