import type {
  Answering,
  LogEntry,
  NodesDelta,
  RunDelta,
  RunListEntry,
  RunSnapshot,
  ViewNode,
  ViewQuestion,
  ViewRun,
} from '../protocol.js';

const MAX_LOG = 300;

/** What the page knows of the run: a snapshot, kept current by the deltas the server sends. */
export class Store {
  run: ViewRun | null = null;
  rootId = 'root';
  readonly nodes = new Map<string, ViewNode>();
  questions: readonly ViewQuestion[] = [];
  answering: Answering = { ok: false, note: '', driver: null };
  runs: readonly RunListEntry[] = [];
  log: LogEntry[] = [];
  /** Bumped on every change, so views can tell whether they are stale. */
  version = 0;

  applySnapshot(s: RunSnapshot): void {
    this.nodes.clear();
    for (const n of s.nodes) this.nodes.set(n.id, n);
    this.rootId = s.rootId;
    this.log = [];
    this.applyRun(s);
  }

  applyNodes(d: NodesDelta): void {
    for (const n of d.nodes) this.nodes.set(n.id, n);
    for (const id of d.removed) this.nodes.delete(id);
    this.version += 1;
  }

  applyRun(d: RunDelta): void {
    this.run = d.run;
    this.questions = d.questions;
    this.answering = d.answering;
    this.runs = d.runs;
    this.version += 1;
  }

  /**
   * Adds the entries the log does not hold yet: the journal's tail a page starts with may overlap
   * the first entries the server sends after it. (`seq` alone is not enough: a process that died
   * before saving its last events numbers the next ones again.)
   */
  appendLog(entries: readonly LogEntry[]): void {
    const held = new Set(this.log.map(logKey));
    const fresh = entries.filter((e) => !held.has(logKey(e)));
    this.log = [...this.log, ...fresh].slice(-MAX_LOG);
    this.version += 1;
  }

  pending(): ViewQuestion[] {
    return this.questions.filter((q) => q.answer === null);
  }

  /** The node's ancestors, root first. */
  ancestors(id: string): string[] {
    const out: string[] = [];
    for (let n = this.nodes.get(id); n?.parentId != null; n = this.nodes.get(n.parentId))
      out.unshift(n.parentId);
    return out;
  }
}

function logKey(e: LogEntry): string {
  return `${e.seq}@${e.at}`;
}
