import type { StateFile } from '../../core/tree/schema.js';
import type { RunEngine } from '../../app/run-engine.js';
import { repositoryState } from '../../app/read-runs.js';
import { workspaceLockHolder } from '../../app/run-status.js';
import { workspaceKey, type WorkspaceKey } from '../../app/workspace-hold.js';
import { openWorkspace } from '../../app/wiring/wiring.js';
import { engineOver, type OpenedWorkspace } from '../../app/open-engine.js';
import type { Settings } from '../../app/settings.js';

/** A repository the server works in: its engine, its git processes and the lock it holds. */
export interface Workspace {
  readonly dir: string;
  readonly engine: RunEngine;
  readonly lock: WorkspaceKey;
  readonly git: Pick<OpenedWorkspace, 'diff' | 'close'>;
}

/** One use of an open workspace (a run driven there, a live view, a write): it stays open until released. */
export interface Lease {
  readonly workspace: Workspace;
  /** Ends this use (once; again does nothing). The last use closes the workspace, its lock released. */
  release(): Promise<void>;
}

interface Entry {
  readonly opened: Promise<Workspace>;
  users: number;
}

/**
 * The repositories one MCP server works in: each opened once (one engine per state file, with the
 * workspace's lock against other processes) while something of the server's uses it, and closed,
 * its lock released, when nothing does, so that a `maker` in a terminal can work there beside
 * Gemini CLI. Reading a state file never takes the lock. Also the GitHub tokens its runs publish with.
 */
export class Workspaces {
  readonly #settings: Settings;
  readonly #entries = new Map<string, Entry>();
  /** Workspaces being closed: their locks are released before the same repository opens again. */
  readonly #closing = new Map<string, Promise<void>>();
  /** The locks starts took before their workspaces were opened. */
  readonly startLocks = new Map<string, WorkspaceKey>();
  /** GitHub tokens by repository, in memory only. */
  readonly tokens = new Map<string, string>();

  constructor(settings: Settings) {
    this.#settings = settings;
  }

  /** The workspace of `dir` if it is open (or opening), without opening it. */
  opened(dir: string): Promise<Workspace> | undefined {
    return this.#entries.get(dir)?.opened;
  }

  /** A use of `dir`'s workspace: the open one, or opened now (taking the lock a start took, or the lock). */
  async lease(dir: string, create = false): Promise<Lease> {
    await this.#closed(dir);
    let entry = this.#entries.get(dir);
    if (entry === undefined) {
      const created: Entry = { opened: this.#open(dir, create), users: 0 };
      created.opened.catch(() => {
        if (this.#entries.get(dir) === created) this.#entries.delete(dir);
      });
      this.#entries.set(dir, created);
      entry = created;
    }
    return this.#use(dir, entry);
  }

  /** A use of `dir`'s workspace if it is open now; undefined when it is not (this never opens one). */
  borrow(dir: string): Promise<Lease> | undefined {
    const entry = this.#entries.get(dir);
    return entry === undefined ? undefined : this.#use(dir, entry);
  }

  /**
   * `dir`'s state as it is now, without the lock: the open engine's when the server works there,
   * else the state file read (as `maker status` does). Undefined for a directory that is not a
   * repository (looking never creates).
   */
  async state(dir: string): Promise<StateFile | undefined> {
    await this.#closed(dir);
    const lease = await this.borrow(dir)?.catch(() => undefined);
    if (lease !== undefined)
      try {
        return await lease.workspace.engine.state();
      } finally {
        await lease.release();
      }
    return repositoryState(dir);
  }

  /** Whether another live process holds `dir`'s lock (never this server, which has it open then). */
  async lockedElsewhere(dir: string): Promise<boolean> {
    if (this.#entries.has(dir) || this.startLocks.has(dir)) return false;
    const found = await workspaceLockHolder(dir);
    return found !== undefined && found.state !== 'stale';
  }

  /** Closes every workspace, whoever uses it (the server is shutting down). */
  async close(): Promise<void> {
    const entries = [...this.#entries.values()];
    this.#entries.clear();
    await Promise.all([...entries.map((e) => closeWorkspace(e.opened)), ...this.#closing.values()]);
  }

  async #closed(dir: string): Promise<void> {
    for (let c = this.#closing.get(dir); c !== undefined; c = this.#closing.get(dir)) await c;
  }

  async #use(dir: string, entry: Entry): Promise<Lease> {
    entry.users++;
    let workspace: Workspace;
    try {
      workspace = await entry.opened;
    } catch (error) {
      entry.users--;
      throw error;
    }
    let released: Promise<void> | undefined;
    return { workspace, release: () => (released ??= this.#release(dir, entry)) };
  }

  #release(dir: string, entry: Entry): Promise<void> {
    entry.users--;
    if (entry.users > 0 || this.#entries.get(dir) !== entry) return Promise.resolve();
    this.#entries.delete(dir);
    const closing = closeWorkspace(entry.opened).finally(() => {
      if (this.#closing.get(dir) === closing) this.#closing.delete(dir);
    });
    this.#closing.set(dir, closing);
    return closing;
  }

  async #open(dir: string, create: boolean): Promise<Workspace> {
    const held = this.startLocks.get(dir);
    const lock = held ?? workspaceKey(dir, 'mcp');
    if (held === undefined) await lock.acquire();
    let git: OpenedWorkspace;
    try {
      git = await openWorkspace(dir, create, this.#settings);
    } catch (error) {
      if (held === undefined) await lock.release();
      throw error;
    }
    const engine = await engineOver(dir, git, this.#settings, () => this.tokens.get(dir));
    return { dir, engine, lock, git };
  }
}

/** A workspace's engine and git processes ended, its lock released (errors go nowhere: it is ending). */
async function closeWorkspace(opened: Promise<Workspace>): Promise<void> {
  const ws = await opened.catch(() => undefined);
  ws?.engine.close();
  await ws?.git.close().catch(() => undefined);
  await ws?.lock.release().catch(() => undefined);
}
