import type { Redactor } from '../../core/errors.js';
import type { Question } from '../../core/tree/schema.js';
import type { OpenedWorkspace } from '../../app/open-engine.js';
import type { RunEngine } from '../../app/run-engine.js';
import { thisProcess } from '../view/driver.js';
import { engineSource } from '../view/engine-source.js';
import { startViewServer, type ViewHandle } from '../view/server.js';
import type { Lease } from './workspaces.js';

type ViewOptions = Omit<Parameters<typeof startRunView>[0], 'dir' | 'engine' | 'git'>;

/**
 * The live views of one MCP server, one per repository, started on first use: each keeps its
 * workspace open (its lock held) while it serves, until the server closes.
 */
export class RunViews {
  readonly #views = new Map<string, Promise<{ view: ViewHandle; lease: Lease }>>();
  readonly #options: ViewOptions & { lease: (dir: string) => Promise<Lease> };

  constructor(options: ViewOptions & { lease: (dir: string) => Promise<Lease> }) {
    this.#options = options;
  }

  /** The address of the view of `dir`'s runs, showing `runId`. */
  async url(dir: string, runId: string): Promise<string> {
    let view = this.#views.get(dir);
    if (view === undefined) {
      view = this.#start(dir);
      this.#views.set(dir, view);
      view.catch(() => this.#views.delete(dir));
    }
    return `${(await view).view.url}&run=${encodeURIComponent(runId)}`;
  }

  async #start(dir: string): Promise<{ view: ViewHandle; lease: Lease }> {
    const { lease: open, ...options } = this.#options;
    const lease = await open(dir);
    try {
      const { engine, git } = lease.workspace;
      return { view: await startRunView({ ...options, dir, engine, git }), lease };
    } catch (error) {
      await lease.release();
      throw error;
    }
  }

  /** Stops every view and lets go of its workspace. */
  async close(): Promise<void> {
    await Promise.all(
      [...this.#views.values()].map((v) =>
        v
          .then(({ view, lease }) => view.close().finally(() => lease.release()))
          .catch(() => undefined),
      ),
    );
  }
}

/**
 * The live view of one repository's runs, served from the MCP server: it follows the engine's
 * events, and an answer on the page goes where `maker_answer` sends it (a run not running in this
 * server is resumed, as `maker_answer` does).
 */
export function startRunView(options: {
  dir: string;
  engine: RunEngine;
  git: Pick<OpenedWorkspace, 'diff'>;
  isActive: (runId: string) => boolean;
  answer: (runId: string, questionId: string, answer: string) => Promise<Question>;
  resume: (runId: string) => Promise<unknown>;
  redact: Redactor;
}): Promise<ViewHandle> {
  const { dir, engine, git, isActive } = options;
  const source = engineSource({
    dir,
    engine,
    diff: (from, to) => git.diff(from, to),
    answering: (runId) =>
      Promise.resolve({
        ok: true,
        driver: isActive(runId) ? thisProcess("Gemini CLI's maker server") : null,
        note: isActive(runId)
          ? 'The run waits in Gemini CLI’s maker server: an answer here goes straight to it, as maker_answer does.'
          : 'An answer here is saved and the run resumes in Gemini CLI’s maker server, as maker_answer does.',
      }),
    answer: async (runId, questionId, answer) => {
      const question = await options.answer(runId, questionId, answer);
      if (!isActive(runId)) await options.resume(runId);
      return { question, note: 'Answered: the run goes on.' };
    },
  });
  return startViewServer({ source, redact: options.redact });
}
