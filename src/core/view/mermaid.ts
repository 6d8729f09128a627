import { isSimulatedRun } from '../tree/simulated.js';
import type { Run, TreeNode } from '../tree/schema.js';
import {
  displayStatus,
  flagCounts,
  mainRecord,
  STATUS_COLOURS,
  tallyText,
  waitingNodes,
  type DisplayStatus,
} from './display.js';

export interface MermaidOptions {
  /** Most boxes drawn, "… N more" boxes included (default 100). Deeper subtrees collapse first. */
  readonly maxNodes?: number;
  /** Most characters of diagram text (default 30,000; GitHub refuses diagrams past 50,000). */
  readonly maxChars?: number;
  /** Longest title shown, in characters (default 48). */
  readonly titleChars?: number;
  /** Layout direction (default TD, top-down). */
  readonly direction?: 'TD' | 'LR';
}

/** Characters a label keeps as they are; everything else becomes a Mermaid entity code (`#35;`). */
const SAFE = /[A-Za-z0-9 .,:()/+?!'-]/;
/** Line breaks, other control characters and bidirectional overrides: never shown. */
const INVISIBLE = /[\p{Cc}\u200e\u200f\u202a-\u202e\u2066-\u2069]/gu;

/** Text for a quoted Mermaid label: one line, at most `max` characters, nothing that can end the quote. */
export function mermaidText(text: string, max: number): string {
  const chars = [...text.replace(INVISIBLE, ' ').replace(/\s+/g, ' ').trim()];
  const shown = chars.length > max ? [...chars.slice(0, Math.max(1, max - 1)), '…'] : chars;
  return shown.map((c) => (SAFE.test(c) ? c : `#${c.codePointAt(0)};`)).join('');
}

interface Box {
  readonly id: string;
  readonly label: string;
  readonly status: DisplayStatus | 'more';
}

/**
 * A run's decomposition tree as a Mermaid flowchart (no code fence): one box per node with its
 * title, status, vote tally and red-flag count, coloured by status. Deterministic for a given
 * state. Titles are escaped so that no text from the run can change the diagram. Past `maxNodes`
 * boxes or `maxChars` characters, the deepest subtrees are drawn as one "… N more nodes" box each.
 */
export function mermaidTree(run: Run, options: MermaidOptions = {}): string {
  const maxChars = options.maxChars ?? 30_000;
  let maxNodes = Math.max(2, options.maxNodes ?? 100);
  for (;;) {
    const text = render(run, maxNodes, options);
    if (text.length <= maxChars || maxNodes <= 2) return text;
    maxNodes = Math.max(2, Math.floor(maxNodes * Math.min(0.9, maxChars / text.length)));
  }
}

/** {@link mermaidTree} in a fenced block, as GitHub renders it in a pull request body or an issue. */
export function mermaidMarkdown(run: Run, options: MermaidOptions = {}): string {
  return `\`\`\`mermaid\n${mermaidTree(run, options)}\n\`\`\``;
}

function render(run: Run, maxNodes: number, options: MermaidOptions): string {
  const titleChars = options.titleChars ?? 48;
  const waiting = waitingNodes(run);
  const sizes = subtreeSizes(run);
  const root = run.nodes[run.rootId];
  const boxes: Box[] = [];
  const edges: [string, string][] = [];
  if (root !== undefined) {
    const ids = new Map<string, string>([[root.id, 'n0']]);
    const rootBox = box(run, root, 'n0', waiting, titleChars);
    // A simulated run says so on its root, in every picture made of it (report, pull request).
    boxes.push(
      isSimulatedRun(run.config)
        ? { ...rootBox, label: `SIMULATED #183; ${rootBox.label}` }
        : rootBox,
    );
    // Breadth first: a node's children are drawn when they all fit, else they fold into one box.
    // Every queued node with children keeps one slot in reserve for its "… more" box.
    const hasChildren = (n: TreeNode) => n.children.some((c) => run.nodes[c] !== undefined);
    const queue: TreeNode[] = [root];
    let reserved = hasChildren(root) ? 1 : 0;
    for (let at = 0; at < queue.length; at++) {
      const n = queue[at] as TreeNode;
      const children = n.children
        .map((c) => run.nodes[c])
        .filter((c): c is TreeNode => c !== undefined);
      if (children.length === 0) continue;
      reserved -= 1;
      const parent = ids.get(n.id) as string;
      const more = children.filter(hasChildren).length;
      if (boxes.length + children.length + reserved + more <= maxNodes) {
        for (const child of children) {
          const id = `n${ids.size}`;
          ids.set(child.id, id);
          boxes.push(box(run, child, id, waiting, titleChars));
          edges.push([parent, id]);
          queue.push(child);
        }
        reserved += more;
        continue;
      }
      const hidden = (sizes.get(n.id) ?? 1) - 1;
      const id = `m${at}`;
      const label = mermaidText(`… ${hidden} more node${hidden === 1 ? '' : 's'}`, 60);
      boxes.push({ id, label, status: 'more' });
      edges.push([parent, id]);
    }
  }
  const lines = [`flowchart ${options.direction ?? 'TD'}`];
  for (const b of boxes) lines.push(`  ${b.id}["${b.label}"]`);
  for (const [from, to] of edges) lines.push(`  ${from} --> ${to}`);
  const used = new Map<string, string[]>();
  for (const b of boxes) used.set(b.status, [...(used.get(b.status) ?? []), b.id]);
  for (const [status, ids] of [...used].sort(([a], [b]) => a.localeCompare(b))) {
    const [fill, stroke] =
      status === 'more' ? ['#fafafa', '#9e9e9e'] : STATUS_COLOURS[status as DisplayStatus];
    lines.push(`  classDef ${status} fill:${fill},stroke:${stroke},color:#111`);
    lines.push(`  class ${ids.join(',')} ${status}`);
  }
  return lines.join('\n');
}

function box(
  run: Run,
  n: TreeNode,
  id: string,
  waiting: ReadonlySet<string>,
  titleChars: number,
): Box {
  const status = displayStatus(run, n, waiting);
  const tally = tallyText(mainRecord(n));
  const flags = Object.values(flagCounts(n)).reduce((a, b) => a + b, 0);
  const facts = [status, tally, flags > 0 ? `${flags} red-flagged` : null]
    .filter((f): f is string => f !== null)
    .map((f) => mermaidText(f, 60))
    .join(' #183; ');
  return { id, label: `${mermaidText(n.title, titleChars)}<br/>${facts}`, status };
}

/** Nodes in each subtree, the node itself included. */
function subtreeSizes(run: Run): Map<string, number> {
  const sizes = new Map<string, number>();
  const size = (id: string, depth: number): number => {
    const known = sizes.get(id);
    if (known !== undefined) return known;
    const n = run.nodes[id];
    if (n === undefined || depth > 64) return 0;
    const total = 1 + n.children.reduce((a, c) => a + size(c, depth + 1), 0);
    sizes.set(id, total);
    return total;
  };
  size(run.rootId, 0);
  return sizes;
}
