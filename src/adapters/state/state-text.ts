import type { Redactor } from '../../core/errors.js';
import type { StateFile, TreeNode, VoteRecord } from '../../core/tree/schema.js';
import { fieldChanges, fieldMembers, headEdit } from './edits.js';
import { NODE_VOTE_FIELDS } from './state-log.js';
import { sameShape, shapeOf } from './value-shape.js';
import { VoteTexts, type VoteField, type VoteText } from './vote-text.js';

/** A node's text in parts, to tell which changed. */
interface NodeParts {
  /** The node's fields but its votes and {@link LIVE}, and what they were made of. */
  readonly fixed: VoteText;
  /** The {@link LIVE} fields. */
  readonly live: string;
  /** Each vote field the node has. */
  readonly votes: Partial<Record<VoteField, VoteText>>;
}

/**
 * A node's text in parts while it is worked on; its whole text is joined from them when needed.
 * Once it is done, nothing: its text is made again from the node when a snapshot is written (a
 * finished node goes into a few snapshots at most; its text kept would stay for the whole run).
 */
interface NodeText {
  node: TreeNode;
  /** The node was `done` when its text was taken. */
  done: boolean;
  /** Undefined once done: the parts are let go (a change is written whole). */
  parts: NodeParts | undefined;
  /** The length of the node's text in a snapshot (its id included), about. */
  length: number;
}

interface RunText {
  head: string;
  readonly nodes: Map<string, NodeText>;
}

/** What changed since the previous {@link StateText.update}, as log lines. */
export interface StateChanges {
  /** One JSON line (with its `\n`) per changed run head, node, ledger or start under way. */
  readonly lines: string[];
  /** A run or a node disappeared: a log of upserts cannot say that, only a new snapshot can. */
  readonly removed: boolean;
  /**
   * By how much the document's text grew (or, negative, shrank) with these changes, about: what
   * a snapshot would cost now is the last one's length plus the sum of these since.
   */
  readonly grew: number;
}

/**
 * A node's fields that change as it is worked on, serialised on every save of the node; its other
 * fields, but the votes, are serialised only when they no longer hold the same values. `#fixed`
 * leaves out the same names by a rest copy (keep it in step).
 */
const live = (n: TreeNode): object => ({
  status: n.status,
  kind: n.kind,
  cost: n.cost,
  mergeHeads: n.mergeHeads,
  commit: n.commit,
  branch: n.branch,
  baseCommit: n.baseCommit,
  error: n.error,
});
const LIVE: ReadonlySet<string> = new Set(Object.keys(live({} as TreeNode)));
const NOT_FIXED: ReadonlySet<string> = new Set([...LIVE, ...NODE_VOTE_FIELDS]);

/** `{…fixed, …live, "field": vote, …}` for the given vote fields the node has, by one `join` (a flat string). */
function nodeJson(entry: NodeParts, fields: readonly VoteField[]): string {
  const { fixed, live } = entry;
  const parts = [fixed.text.slice(0, -1)];
  let sep = fixed.text === '{}' ? '' : ',';
  if (live !== '{}') {
    parts.push(sep, live.slice(1, -1));
    sep = ',';
  }
  for (const field of fields) {
    const vote = entry.votes[field];
    if (vote === undefined) continue;
    parts.push(sep, '"', field, '":', vote.text);
    sep = ',';
  }
  parts.push('}');
  return parts.join('');
}

/** The length of {@link nodeJson}'s text of every vote field, about, without making it. */
function nodeLength(entry: NodeParts): number {
  let length = entry.fixed.text.length + entry.live.length;
  for (const field of NODE_VOTE_FIELDS) {
    const vote = entry.votes[field];
    if (vote !== undefined) length += field.length + 4 + vote.text.length;
  }
  return length;
}

/**
 * The JSON text of a state document, kept per run head and per node (its fields, and each of its
 * votes) so that a save serialises only what may have changed. A node cached while `done` is not
 * serialised again while it is the same object and still `done` (the engine never changes a
 * finished node); any other node's fields are serialised and compared with their cached text, and
 * each vote's text is reused while the vote holds the same values and the same finished draws (see
 * {@link VoteTexts}). A done node keeps no text: a snapshot makes it again from the node.
 * Everything passes `redact` before it is cached.
 */
export class StateText {
  readonly #redact: Redactor;
  readonly #votes: VoteTexts;
  readonly #runs = new Map<string, RunText>();
  #ledger: string | undefined;
  #starting: string | undefined;
  /** See {@link StateChanges.grew}: summed over an update. */
  #grew = 0;

  constructor(redact: Redactor = (text) => text) {
    this.#redact = redact;
    this.#votes = new VoteTexts(redact);
  }

  /**
   * Brings the cache up to date with `state` and returns what changed. Run heads and the ledger are
   * always looked at. With `changed`, the only nodes looked at are those in it and their children
   * not cached yet (a new node is always some changed node's child); a node in `changed` that is not
   * in the state makes it look at every node. Without `changed`, every node not cached as `done` is.
   */
  update(state: StateFile, changed?: ReadonlySet<object>): StateChanges {
    const lines: string[] = [];
    this.#grew = 0;
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
        this.#grew += runId.length + head.length + 12;
        lines.push(`{"run":${JSON.stringify(runId)},"head":${head}}\n`);
        fresh.add(runId);
      } else if (cached.head !== head) {
        lines.push(headEdit(runId, cached.head, head));
        this.#grew += head.length - cached.head.length;
        cached.head = head;
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
    const starting =
      state.starting === undefined ? undefined : this.#redact(JSON.stringify(state.starting));
    if (starting !== this.#starting) {
      if (starting === undefined) removed = true;
      else lines.push(`{"starting":${starting}}\n`);
      this.#starting = starting;
    }
    return { lines, removed, grew: this.#grew };
  }

  /** The run holding `node` (this very object), if any. */
  #runOf(state: StateFile, node: TreeNode): string | undefined {
    for (const runId in state.runs) if (state.runs[runId]?.nodes[node.id] === node) return runId;
    return undefined;
  }

  /**
   * Serialises the node unless it is cached as `done`: its fields without the votes always, each
   * vote only if it is no longer made of what its cached text was built from. A line if anything
   * changed: the whole node when it is new or lost a vote, else an edit (the fields and the draws
   * that changed).
   */
  #updateNode(runId: string, nodeId: string, node: TreeNode, lines: string[]): void {
    const cached = this.#runs.get(runId) as RunText;
    const entry = cached.nodes.get(nodeId);
    if (entry?.node === node && entry.done && node.status === 'done') return;
    const before = entry?.parts;
    const fixed = this.#fixed(node, before?.fixed);
    const liveText = this.#redact(JSON.stringify(live(node)));
    const { minimal, split, leaf, integrations } = node;
    const values = { minimal, split, leaf, integrations };
    const votes: Partial<Record<VoteField, VoteText>> = {};
    const changed: VoteField[] = [];
    let whole = before === undefined;
    for (const field of NODE_VOTE_FIELDS) {
      const value = values[field];
      const old = before?.votes[field];
      if (value === undefined) {
        if (old !== undefined) whole = true; // an edit record cannot remove a vote
        continue;
      }
      const text = this.#votes.field(field, value, old);
      votes[field] = text;
      if (text.text !== old?.text) changed.push(field);
    }
    const parts: NodeParts = { fixed, live: liveText, votes };
    const done = node.status === 'done';
    const same =
      before !== undefined &&
      !whole &&
      changed.length === 0 &&
      before.live === liveText &&
      before.fixed.text === fixed.text;
    if (!same) {
      const where = `{"run":${JSON.stringify(runId)},"id":${JSON.stringify(nodeId)}`;
      if (whole || before === undefined) {
        lines.push(`${where},"node":${nodeJson(parts, NODE_VOTE_FIELDS)}}\n`);
      } else {
        lines.push(`${where},"edit":{${this.#edit(before, parts, changed, values)}}}\n`);
      }
    }
    const length = nodeId.length + 3 + nodeLength(parts);
    this.#grew += length - (entry?.length ?? 0);
    if (!done) {
      cached.nodes.set(nodeId, { node, done, parts, length });
      return;
    }
    cached.nodes.set(nodeId, { node, done, parts: undefined, length });
    for (const field of NODE_VOTE_FIELDS) {
      const value = values[field];
      if (value !== undefined) this.#votes.forget(field, value);
    }
  }

  /**
   * The body of an edit record (see `edits.ts`): the node's fields that changed between `before`
   * and `now`, and per vote in `changed` a patch (or the whole vote, when new, an integration, or
   * started over).
   */
  #edit(
    before: NodeParts,
    now: NodeParts,
    changed: readonly VoteField[],
    values: Partial<Record<VoteField, unknown>>,
  ): string {
    const set: string[] = [];
    const unset: string[] = [];
    fieldChanges(before.fixed.text, now.fixed.text, set, unset);
    fieldChanges(before.live, now.live, set, unset);
    const votes: string[] = [];
    for (const field of changed) {
      const next = now.votes[field] as VoteText;
      const old = before.votes[field];
      const patch =
        old === undefined || field === 'integrations'
          ? undefined
          : this.#votes.patch(values[field] as VoteRecord, next, old);
      votes.push(`"${field}":${patch ?? `{"whole":${next.text}}`}`);
    }
    const members =
      fieldMembers(set, unset) + (votes.length === 0 ? '' : `,"votes":{${votes.join(',')}}`);
    return members.slice(1);
  }

  /** A done node's whole text, as {@link update} would make it, keeping nothing of it. */
  #doneJson(node: TreeNode): string {
    const votes: Partial<Record<VoteField, VoteText>> = {};
    for (const field of NODE_VOTE_FIELDS) {
      const value = node[field];
      if (value !== undefined) votes[field] = this.#votes.field(field, value, undefined, false);
    }
    const fixed = this.#fixed(node);
    return nodeJson(
      { fixed, live: this.#redact(JSON.stringify(live(node))), votes },
      NODE_VOTE_FIELDS,
    );
  }

  /** The text of the node's fields but its votes and {@link LIVE}, reusing `cached` if it still holds. */
  #fixed(node: TreeNode, cached?: VoteText): VoteText {
    if (cached?.shape !== undefined && sameShape(node, cached.shape, NOT_FIXED)) return cached;
    /* eslint-disable @typescript-eslint/no-unused-vars -- left out by a rest copy, V8's fast path */
    // prettier-ignore
    const { status, kind, cost, mergeHeads, commit, branch, baseCommit, error, // LIVE
      minimal, split, leaf, integrations, ...fields } = node;
    /* eslint-enable @typescript-eslint/no-unused-vars */
    const text = this.#redact(JSON.stringify(fields));
    // Its shape from its second serialisation on: many nodes are written once (a snapshot, a new child).
    return { text, shape: cached === undefined ? undefined : shapeOf(node, NOT_FIXED) };
  }

  /**
   * The whole document as JSON, from the cache; call {@link update} with the same state first.
   * `extra` (e.g. `"$generation":3`) goes right after the schema version.
   */
  document(state: StateFile, extra = ''): string {
    return this.documentPieces(state, extra).join('');
  }

  /**
   * {@link document} in pieces (a run's head, a node each, the separators), in order: a large state
   * is written without its whole text, and a copy of it for the file, held in memory at once.
   */
  documentPieces(state: StateFile, extra = ''): string[] {
    const more = extra === '' ? '' : `,${extra}`;
    const pieces = [`{"$schemaVersion":${JSON.stringify(state.$schemaVersion)}${more},"runs":{`];
    let runSep = '';
    for (const runId in state.runs) {
      const cached = this.#runs.get(runId);
      const run = state.runs[runId];
      if (cached === undefined || run === undefined) continue;
      const head = cached.head;
      pieces.push(
        `${runSep}${JSON.stringify(runId)}:${head.slice(0, -1)}${head === '{}' ? '' : ','}"nodes":{`,
      );
      runSep = ',';
      let sep = '';
      for (const nodeId in run.nodes) {
        const entry = cached.nodes.get(nodeId);
        if (entry === undefined) continue;
        // Joined from its parts, or made again (done): kept, it would double what the parts hold.
        const json =
          entry.parts === undefined
            ? this.#doneJson(entry.node)
            : nodeJson(entry.parts, NODE_VOTE_FIELDS);
        pieces.push(`${sep}${JSON.stringify(nodeId)}:`, json);
        sep = ',';
      }
      pieces.push('}}');
    }
    const ledger = this.#ledger === undefined ? '' : `,"ledger":${this.#ledger}`;
    const starting = this.#starting === undefined ? '' : `,"starting":${this.#starting}`;
    pieces.push(`}${ledger}${starting}}`);
    return pieces;
  }
}

/** Serialises whole state documents, reusing the text of unfinished nodes' parts between calls (see {@link StateText}). */
export function stateSerializer(redact: Redactor = (text) => text): (state: StateFile) => string {
  const text = new StateText(redact);
  return (state) => {
    text.update(state);
    return text.document(state);
  };
}
