import type { ServerResponse } from 'node:http';
import type { Redactor } from '../../core/errors.js';
import type { Run } from '../../core/tree/schema.js';
import { runList, snapshotOf, viewNodes, viewQuestions, viewRun } from './model.js';
import type { LogEntry, RunDelta, RunSnapshot } from './protocol.js';
import type { ViewListener, ViewSource } from './source.js';

/** The pages following one run (or "the latest run", key ''), and what they were last sent. */
interface Channel {
  readonly clients: Set<ServerResponse>;
  runId: string | undefined;
  nodes: Map<string, string>;
  run: string;
}

/** Shortest time between two rounds of updates. */
const FLUSH_MS = 100;
const KEEPALIVE_MS = 20_000;

/**
 * The server-sent event streams of a view: each page gets a full `snapshot` when it connects, then
 * only what changed (`nodes`, `run`, `log`), at most every 100 ms however fast the run goes.
 * A reconnecting page (EventSource does that by itself) starts again from a snapshot.
 */
export class RunChannels implements ViewListener {
  readonly #source: ViewSource;
  readonly #redact: Redactor;
  readonly #channels = new Map<string, Channel>();
  readonly #logs = new Map<string, LogEntry[]>();
  #timer: NodeJS.Timeout | undefined;
  #flushing: Promise<void> = Promise.resolve();
  readonly #keepalive: NodeJS.Timeout;

  constructor(source: ViewSource, redact: Redactor) {
    this.#source = source;
    this.#redact = redact;
    this.#keepalive = setInterval(() => {
      for (const channel of this.#channels.values())
        for (const client of channel.clients) client.write(': keep-alive\n\n');
    }, KEEPALIVE_MS);
    this.#keepalive.unref();
  }

  /** How many pages' event streams are open. */
  get streams(): number {
    let count = 0;
    for (const channel of this.#channels.values()) count += channel.clients.size;
    return count;
  }

  /** The run a page asked for, or the latest one; undefined when there is none (yet). */
  async resolve(runId: string | undefined): Promise<string | undefined> {
    const state = await this.#source.state();
    if (runId !== undefined) return state.runs[runId] === undefined ? undefined : runId;
    return latest(state.runs)?.id;
  }

  async snapshot(runId: string | undefined): Promise<RunSnapshot | undefined> {
    const state = await this.#source.state();
    const id = await this.resolve(runId);
    const run = id === undefined ? undefined : state.runs[id];
    if (run === undefined) return undefined;
    return snapshotOf(run, state.runs, await this.#source.answering(run.id), this.#source.dir);
  }

  /** Adds a page's event stream: its snapshot (or `empty` while there is no run) and recent log. */
  async join(key: string, res: ServerResponse, log: readonly LogEntry[]): Promise<void> {
    let channel = this.#channels.get(key);
    if (channel === undefined) {
      channel = { clients: new Set(), runId: undefined, nodes: new Map(), run: '' };
      this.#channels.set(key, channel);
    }
    const snapshot = await this.snapshot(key === '' ? undefined : key);
    // The page may have gone while its snapshot was made: its 'close' has fired already.
    if (res.destroyed) return;
    if (snapshot === undefined)
      this.#write(res, 'empty', {
        dir: this.#source.dir,
        runId: key === '' ? null : key,
      });
    else {
      this.#write(res, 'snapshot', snapshot);
      if (log.length > 0) this.#write(res, 'log', log);
      if (channel.clients.size === 0) {
        // The first page of this channel: later rounds send what changed since this snapshot.
        remember(channel, snapshot);
      }
    }
    channel.clients.add(res);
    const clients = channel.clients;
    res.on('close', () => clients.delete(res));
  }

  changed(_runId?: string): void {
    this.#timer ??= setTimeout(() => {
      this.#timer = undefined;
      this.#flushing = this.#flushing.then(() => this.#flush()).catch(() => undefined);
    }, FLUSH_MS);
  }

  log(runId: string, entry: LogEntry): void {
    const list = this.#logs.get(runId) ?? [];
    list.push(entry);
    this.#logs.set(runId, list.slice(-500));
    this.changed();
  }

  /** Ends every stream (pages then try to reconnect, which fails once the server is closed). */
  close(): void {
    if (this.#timer !== undefined) clearTimeout(this.#timer);
    this.#timer = undefined;
    clearInterval(this.#keepalive);
    for (const channel of this.#channels.values())
      for (const client of channel.clients) client.end();
    this.#channels.clear();
  }

  async #flush(): Promise<void> {
    const logs = new Map(this.#logs);
    this.#logs.clear();
    const state = await this.#source.state();
    for (const [key, channel] of this.#channels) {
      if (channel.clients.size === 0) continue;
      const runId = await this.resolve(key === '' ? undefined : key);
      const run = runId === undefined ? undefined : state.runs[runId];
      if (run === undefined) continue;
      const answering = await this.#source.answering(run.id);
      if (channel.runId !== run.id) {
        // A different run than these pages show (a newer one started): start them over.
        const snapshot = snapshotOf(run, state.runs, answering, this.#source.dir);
        this.#broadcast(channel, 'snapshot', snapshot);
        remember(channel, snapshot);
        continue;
      }
      const nodes = viewNodes(run, answering.driver !== null);
      const changed = [];
      const seen = new Map<string, string>();
      for (const n of nodes) {
        const json = JSON.stringify(n);
        seen.set(n.id, json);
        if (channel.nodes.get(n.id) !== json) changed.push(n);
      }
      const removed = [...channel.nodes.keys()].filter((id) => !seen.has(id));
      channel.nodes = seen;
      if (changed.length > 0 || removed.length > 0)
        this.#broadcast(channel, 'nodes', { nodes: changed, removed });
      const delta: RunDelta = {
        run: viewRun(run, this.#source.dir, answering.driver),
        questions: viewQuestions(run),
        answering,
        runs: runList(state.runs, this.#source.dir, answering.driver),
      };
      const runJson = JSON.stringify(delta);
      if (runJson !== channel.run) {
        channel.run = runJson;
        this.#broadcast(channel, 'run', delta);
      }
      const log = logs.get(run.id);
      if (log !== undefined) this.#broadcast(channel, 'log', log);
    }
  }

  #broadcast(channel: Channel, event: string, data: unknown): void {
    for (const client of channel.clients) this.#write(client, event, data);
  }

  #write(res: ServerResponse, event: string, data: unknown): void {
    // JSON has no raw line breaks, so one `data:` line carries it.
    res.write(`event: ${event}\ndata: ${this.#redact(JSON.stringify(data))}\n\n`);
  }
}

/** What a channel's pages were sent, as of `snapshot`. */
function remember(channel: Channel, snapshot: RunSnapshot): void {
  const { run, questions, answering, runs } = snapshot;
  channel.runId = run.id;
  channel.nodes = new Map(snapshot.nodes.map((n) => [n.id, JSON.stringify(n)]));
  channel.run = JSON.stringify({ run, questions, answering, runs } satisfies RunDelta);
}

function latest(runs: Readonly<Record<string, Run>>): Run | undefined {
  return Object.values(runs)
    .sort((a, b) => a.createdAt.localeCompare(b.createdAt))
    .at(-1);
}
