import type { RunRemote } from '../../ports/remote.js';
import type { EngineEvent } from '../events.js';
import { ensurePullRequest } from './github.js';
import { branchName } from '../run/naming.js';
import type { RunContext } from '../run/run-context.js';

/** The events after which the pull request's body may read differently. */
const BODY_EVENTS: ReadonlySet<EngineEvent['type']> = new Set([
  'commit-end',
  'merge-end',
  'question-answered',
  'node-split',
]);

/**
 * Keeps the run's pull request up to date as the run goes: opened once the root branch holds work
 * (its first merged child), its body rewritten after changes, debounced, with never more than one
 * request in flight. Failures here are not the run's: the final update before the veto reports them.
 */
export class PullRequestKeeper {
  readonly #ctx: RunContext;
  readonly #remote: RunRemote;
  readonly #debounceMs: number;
  #timer: NodeJS.Timeout | undefined;
  #running: Promise<void> | undefined;
  #dirty = false;
  #stopped = false;

  constructor(ctx: RunContext, remote: RunRemote, debounceMs = 2000) {
    this.#ctx = ctx;
    this.#remote = remote;
    this.#debounceMs = debounceMs;
  }

  /**
   * An event of the run: one that changes what the pull request shows (a commit, a merge, an
   * answer, a split) schedules an update. Events of other runs are ignored.
   */
  observe(event: EngineEvent): void {
    if (event.runId === this.#ctx.run.id && BODY_EVENTS.has(event.type)) this.#poke();
  }

  /** Something the body shows changed: an update follows within the debounce time. */
  #poke(): void {
    if (this.#stopped || this.#timer !== undefined) return;
    this.#timer = setTimeout(() => {
      this.#timer = undefined;
      this.#kick();
    }, this.#debounceMs);
    this.#timer.unref();
  }

  /** No more updates: waits for the one in flight. */
  async stop(): Promise<void> {
    this.#stopped = true;
    clearTimeout(this.#timer);
    this.#timer = undefined;
    await this.#running;
  }

  #kick(): void {
    if (this.#running !== undefined) {
      this.#dirty = true;
      return;
    }
    this.#running = this.#update()
      .catch(() => undefined)
      .finally(() => {
        this.#running = undefined;
        if (this.#dirty) {
          this.#dirty = false;
          this.#poke();
        }
      });
  }

  async #update(): Promise<void> {
    const { run } = this.#ctx;
    const root = run.nodes[run.rootId];
    if (run.github?.pullRequest === undefined) {
      // GitHub refuses a pull request with no commits: wait for the root's first merge.
      const head = root?.mergeHeads.at(-1);
      if (root === undefined || root.mergeHeads.length < 2 || head === undefined) return;
      await this.#remote.publisher.publish(branchName(run.id, run.rootId), head);
    }
    if (this.#stopped) return;
    await ensurePullRequest(this.#ctx, this.#remote);
  }
}
