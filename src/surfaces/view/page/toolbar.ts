import { DISPLAY_MEANING, DISPLAY_STATUSES, STATUS_COLOURS } from '../../../core/view/display.js';
import { h } from './dom.js';

/** What the toolbar's controls do. */
export interface ToolbarActions {
  readonly find: (text: string) => void;
  readonly expandAll: () => void;
  readonly collapseDone: () => void;
  readonly zoom: (factor: number) => void;
}

/** The tree's toolbar: find a node, expand or collapse, zoom, and the legend of status colours. */
export function toolbarOf(actions: ToolbarActions): HTMLElement {
  const find = h('input', {
    attrs: {
      type: 'search',
      placeholder: 'find a node (id or title)',
      'aria-label': 'Find a node',
    },
  });
  return h(
    'div',
    { class: 'toolbar' },
    h(
      'form',
      {
        on: {
          submit: (e) => {
            e.preventDefault();
            actions.find(find.value);
          },
        },
      },
      find,
    ),
    h(
      'button',
      { attrs: { type: 'button' }, on: { click: () => actions.expandAll() } },
      'Expand all',
    ),
    h(
      'button',
      { attrs: { type: 'button' }, on: { click: () => actions.collapseDone() } },
      'Collapse done',
    ),
    h(
      'button',
      {
        attrs: { type: 'button', 'aria-label': 'Zoom out' },
        on: { click: () => actions.zoom(0.8) },
      },
      '−',
    ),
    h(
      'button',
      {
        attrs: { type: 'button', 'aria-label': 'Zoom in' },
        on: { click: () => actions.zoom(1.25) },
      },
      '+',
    ),
    legend(),
  );
}

function legend(): HTMLElement {
  return h(
    'ul',
    { class: 'legend' },
    ...DISPLAY_STATUSES.map((s) => {
      const chip = h('span', { class: 'chip' });
      const [fill, stroke] = STATUS_COLOURS[s];
      chip.style.background = fill;
      chip.style.borderColor = stroke;
      chip.style.boxShadow = `inset 0 0 0 2px ${stroke}`;
      return h('li', { title: DISPLAY_MEANING[s] }, chip, s);
    }),
  );
}
