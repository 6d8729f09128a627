import type { Redactor } from '../../core/errors.js';
import type { Draw, StateFile, TreeNode, VoteRecord } from '../../core/tree/schema.js';

interface NodeText {
  node: TreeNode;
  json: string;
  /** The node was `done` when `json` was taken. */
  done: boolean;
}

interface RunText {
  head: string;
  readonly nodes: Map<string, NodeText>;
}

/** What changed since the previous {@link StateText.update}, as log lines. */
export interface StateChanges {
  /** One JSON line (with its `\n`) per changed run head, node or ledger. */
  readonly lines: string[];
  /** A run or a node disappeared: a log of upserts cannot say that, only a new snapshot can. */
  readonly removed: boolean;
}

/**
 * The JSON text of a state document, kept per run head and per node so that a save serialises only
 * what may have changed. A node cached while `done` is not serialised again while it is the same
 * object and still `done` (the engine never changes a finished node); any other node is serialised
 * and compared with its cached text. Everything passes `redact` before it is cached.
 */
export class StateText {
  readonly #redact: Redactor;
  /** Finished draws' text: a finished draw is replaced, never changed (the engine's invariant). */
  readonly #draws = new WeakMap<Draw, string>();
  readonly #runs = new Map<string, RunText>();
  #ledger: string | undefined;

  constructor(redact: Redactor = (text) => text) {
    this.#redact = redact;
  }

  /**
   * Brings the cache up to date with `state` and returns what changed. Run heads and the ledger are
   * always looked at. With `changed`, the only nodes looked at are those in it and their children
   * not cached yet (a new node is always some changed node's child); a node in `changed` that is not
   * in the state makes it look at every node. Without `changed`, every node not cached as `done` is.
   */
  update(state: StateFile, changed?: ReadonlySet<object>): StateChanges {
    const lines: string[] = [];
    let removed = this.#runs.size > Object.keys(state.runs).length;
    let full = changed === undefined;
    const fresh = new Set<string>();
    for (const runId in state.runs) {
      const run = state.runs[runId];
      if (run === undefined) continue;
      const head = this.#redact(JSON.stringify({ ...run, nodes: undefined }));
      let cached = this.#runs.get(runId);
      if (cached === undefined) {
        cached = { head, nodes: new Map() };
        this.#runs.set(runId, cached);
        lines.push(`{"run":${JSON.stringify(runId)},"head":${head}}\n`);
        fresh.add(runId);
      } else if (cached.head !== head) {
        cached.head = head;
        lines.push(`{"run":${JSON.stringify(runId)},"head":${head}}\n`);
      }
    }
    if (!full) {
      for (const node of changed as ReadonlySet<TreeNode>) {
        const runId = this.#runOf(state, node);
        if (runId === undefined) {
          full = true;
          break;
        }
        if (fresh.has(runId)) continue; // looked at whole below
        const run = state.runs[runId] as StateFile['runs'][string];
        this.#updateNode(runId, node.id, node, lines);
        for (const child of node.children ?? []) {
          const c = run.nodes[child];
          if (c !== undefined && !this.#runs.get(runId)?.nodes.has(child))
            this.#updateNode(runId, child, c, lines);
        }
      }
    }
    for (const runId in state.runs) {
      if (!full && !fresh.has(runId)) continue;
      const nodes = state.runs[runId]?.nodes ?? {};
      let count = 0;
      for (const nodeId in nodes) {
        const node = nodes[nodeId];
        if (node === undefined) continue;
        count += 1;
        this.#updateNode(runId, nodeId, node, lines);
      }
      if ((this.#runs.get(runId)?.nodes.size ?? 0) > count) removed = true;
    }
    const ledger =
      state.ledger === undefined ? undefined : this.#redact(JSON.stringify(state.ledger));
    if (ledger !== this.#ledger) {
      if (ledger === undefined) removed = true;
      else lines.push(`{"ledger":${ledger}}\n`);
      this.#ledger = ledger;
    }
    return { lines, removed };
  }

  /** The run holding `node` (this very object), if any. */
  #runOf(state: StateFile, node: TreeNode): string | undefined {
    for (const runId in state.runs) if (state.runs[runId]?.nodes[node.id] === node) return runId;
    return undefined;
  }

  /** Serialises the node unless it is cached as `done`; a line for it if its text changed. */
  #updateNode(runId: string, nodeId: string, node: TreeNode, lines: string[]): void {
    const cached = this.#runs.get(runId) as RunText;
    const entry = cached.nodes.get(nodeId);
    if (entry?.node === node && entry.done && node.status === 'done') return;
    const json = this.#node(node);
    if (entry !== undefined && entry.json === json) {
      entry.node = node;
      return;
    }
    cached.nodes.set(nodeId, { node, json, done: node.status === 'done' });
    lines.push(`{"run":${JSON.stringify(runId)},"id":${JSON.stringify(nodeId)},"node":${json}}\n`);
  }

  /**
   * `redact(JSON.stringify(node))`, in meaning (vote records last), with finished draws' text reused.
   * Built by one `join`, so the text is one flat string: a node's text is kept until the node
   * changes again, and a string built by `+=` would keep every piece alive (more for the GC to do).
   */
  #node(node: TreeNode): string {
    const { minimal, split, leaf, integrations, ...rest } = node;
    const json = this.#redact(JSON.stringify(rest));
    const parts = [json.slice(0, -1)];
    let sep = json === '{}' ? '' : ',';
    for (const [key, vote] of [
      ['minimal', minimal],
      ['split', split],
      ['leaf', leaf],
    ] as const) {
      if (vote === undefined) continue;
      parts.push(sep, '"', key, '":');
      this.#vote(vote, parts);
      sep = ',';
    }
    if (integrations !== undefined) {
      parts.push(sep, '"integrations":{');
      let inner = '';
      for (const k in integrations) {
        const v = integrations[k];
        if (v === undefined) continue;
        parts.push(inner, JSON.stringify(k), ':');
        this.#vote(v, parts);
        inner = ',';
      }
      parts.push('}');
    }
    parts.push('}');
    return parts.join('');
  }

  /** Appends the vote's text to `parts`. */
  #vote(vote: VoteRecord, parts: string[]): void {
    const { draws, ballots, ...rest } = vote;
    const json = this.#redact(JSON.stringify(rest));
    parts.push(json.slice(0, -1));
    let sep = json === '{}' ? '' : ',';
    for (const [key, list] of [
      ['draws', draws],
      ['ballots', ballots],
    ] as const) {
      if (list === undefined) continue;
      parts.push(sep, '"', key, '":[');
      let inner = '';
      for (const d of list as (Draw | undefined)[]) {
        parts.push(inner, this.#draw(d));
        inner = ',';
      }
      parts.push(']');
      sep = ',';
    }
    parts.push('}');
  }

  #draw(draw: Draw | undefined): string {
    if (draw === undefined || draw === null) return 'null';
    if (draw.status === 'started') return this.#redact(JSON.stringify(draw));
    let json = this.#draws.get(draw);
    if (json === undefined) {
      json = this.#redact(JSON.stringify(draw));
      this.#draws.set(draw, json);
    }
    return json;
  }

  /**
   * The whole document as JSON, from the cache; call {@link update} with the same state first.
   * `extra` (e.g. `"$generation":3`) goes right after the schema version.
   */
  document(state: StateFile, extra = ''): string {
    const runs: string[] = [];
    for (const runId in state.runs) {
      const cached = this.#runs.get(runId);
      const run = state.runs[runId];
      if (cached === undefined || run === undefined) continue;
      const body: string[] = [];
      for (const nodeId in run.nodes) {
        const entry = cached.nodes.get(nodeId);
        if (entry !== undefined) body.push(`${JSON.stringify(nodeId)}:${entry.json}`);
      }
      const head = cached.head;
      runs.push(
        `${JSON.stringify(runId)}:${head.slice(0, -1)}${head === '{}' ? '' : ','}"nodes":{${body.join(',')}}}`,
      );
    }
    const ledger = this.#ledger === undefined ? '' : `,"ledger":${this.#ledger}`;
    const more = extra === '' ? '' : `,${extra}`;
    return `{"$schemaVersion":${JSON.stringify(state.$schemaVersion)}${more},"runs":{${runs.join(',')}}${ledger}}`;
  }
}

/** Serialises whole state documents, reusing the text of finished nodes between calls (see {@link StateText}). */
export function stateSerializer(redact: Redactor = (text) => text): (state: StateFile) => string {
  const text = new StateText(redact);
  return (state) => {
    text.update(state);
    return text.document(state);
  };
}
