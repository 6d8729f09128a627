import { join } from 'node:path';
import type { MakerEngine } from '../../engine/maker-engine.js';
import { inspectRepository } from '../../adapters/git/inspect.js';
import type { GitWorkspace } from '../../adapters/git/git-workspace.js';
import { WorkspaceLock } from '../../adapters/state/lock.js';
import { STATE_FILE_NAME } from '../../adapters/state/state-file.js';
import { engineFor, openWorkspace, rolesFor, secretsOf } from '../wiring.js';
import { engineRemotes } from '../remotes.js';

/** A repository the server works in: its engine, its git processes and the lock it holds. */
export interface Workspace {
  readonly dir: string;
  readonly engine: MakerEngine;
  readonly lock: WorkspaceLock;
  readonly git: Pick<GitWorkspace, 'diff' | 'close'>;
}

/**
 * The repositories one MCP server has opened: each once (one engine per state file, with the
 * workspace's lock against other processes), with the GitHub tokens its runs publish with.
 */
export class Workspaces {
  readonly #env: Readonly<Record<string, string | undefined>>;
  readonly #entries = new Map<string, Promise<Workspace>>();
  /** The locks starts took before their workspaces were opened. */
  readonly startLocks = new Map<string, WorkspaceLock>();
  /** GitHub tokens by repository, in memory only. */
  readonly tokens = new Map<string, string>();

  constructor(env: Readonly<Record<string, string | undefined>>) {
    this.#env = env;
  }

  /** The workspace of `dir` if it is open (or opening), without opening it. */
  opened(dir: string): Promise<Workspace> | undefined {
    return this.#entries.get(dir);
  }

  /** A repository's workspace; undefined for a directory that is not one (looking never creates). */
  async find(dir: string): Promise<Workspace | undefined> {
    if (!this.#entries.has(dir) && (await inspectRepository(dir)).kind !== 'repository')
      return undefined;
    return this.get(dir, false);
  }

  /** A repository's workspace, opened once (with the lock a start took, if one did). */
  get(dir: string, create: boolean): Promise<Workspace> {
    let entry = this.#entries.get(dir);
    if (entry === undefined) {
      const held = this.startLocks.get(dir);
      entry = (async () => {
        const git = await openWorkspace(dir, create, this.#env);
        const lock =
          held ?? new WorkspaceLock(join(dir, `${STATE_FILE_NAME}.lock`), { command: 'mcp' });
        if (held === undefined) await lock.acquire();
        const env = this.#env;
        const remote = engineRemotes(
          git,
          () => this.tokens.get(dir),
          () => engine.persist(),
        );
        // Called only once the engine exists.
        const engine = engineFor(
          dir,
          git,
          (config, run) =>
            rolesFor(config, git, env, {
              ...(run === undefined ? {} : { publisher: remote(run)?.publisher }),
            }),
          secretsOf(env),
          env,
          remote,
        );
        return { dir, engine, lock, git };
      })();
      this.#entries.set(dir, entry);
      entry.catch(() => this.#entries.delete(dir));
    }
    return entry;
  }

  /** Closes every workspace: engines, git processes, and their locks released. */
  async close(): Promise<void> {
    for (const workspace of this.#entries.values()) {
      const ws = await workspace.catch(() => undefined);
      ws?.engine.close();
      await ws?.git.close();
      await ws?.lock.release();
    }
  }
}
