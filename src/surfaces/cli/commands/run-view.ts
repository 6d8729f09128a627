import type { RunEngine } from '../../../app/run-engine.js';
import { answerQuestion } from '../../../app/answer-question.js';
import { makeRedactor } from '../../../core/errors.js';
import type { Workspace } from '../../../ports/workspace.js';
import { thisProcess } from '../../view/driver.js';
import { engineSource } from '../../view/engine-source.js';
import { startViewServer, type ViewHandle } from '../../view/server.js';
import type { CliIo } from '../io.js';
import { secretsOf } from '../../../app/env.js';

/** The live view of a run this process drives (`maker run|demo|resume --view`). */
export async function startRunView(r: {
  readonly engine: RunEngine;
  readonly runId: string;
  readonly dir: string;
  readonly workspace: Pick<Workspace, 'diff'>;
  readonly io: CliIo;
  /** Whether the run waits for answers (--hitl tty or view) rather than saving them (defer). */
  readonly waits: boolean;
  readonly atTerminal: boolean;
  /** Whether the run is still being driven by this process. */
  readonly running: () => boolean;
}): Promise<ViewHandle> {
  const later = `continue the run with: maker resume --dir ${r.dir}`;
  const source = engineSource({
    dir: r.dir,
    engine: r.engine,
    diff: (from, to) => r.workspace.diff(from, to),
    answering: () =>
      Promise.resolve(
        r.running() && r.waits
          ? {
              ok: true,
              driver: thisProcess('this maker process'),
              note: `The run waits for your answer${r.atTerminal ? ' (here or at its terminal)' : ''}: it goes on as soon as you answer.`,
            }
          : {
              ok: true,
              driver: r.running() ? thisProcess('this maker process') : null,
              ...(r.running() ? {} : { resume: `maker resume --dir ${r.dir}` }),
              note: r.running()
                ? `The run saves questions and goes on without them (--hitl defer): an answer here is saved; when the run stops, ${later}.`
                : `The run has stopped: an answer here is saved; ${later}.`,
            },
      ),
    answer: async (runId, questionId, answer) => {
      const { question } = await answerQuestion(
        { engine: r.engine },
        { runId, questionId, answer },
      );
      return {
        question,
        note:
          r.running() && r.waits ? 'Answered: the run goes on.' : `Answered and saved; ${later}.`,
      };
    },
  });
  const view = await startViewServer({
    source,
    runId: r.runId,
    // The process's keys, as the terminal's output: a token found later is redacted here too.
    redact: makeRedactor(r.io.secrets ?? secretsOf(r.io.env)),
  });
  r.io.stderr(`maker: live view at ${view.url}\n`);
  return view;
}

/** After the run: the view stays open until Ctrl-C (the exit status is still the run's). */
export async function keepViewOpen(
  view: ViewHandle,
  io: CliIo,
  signal: AbortSignal | undefined,
): Promise<void> {
  if (signal !== undefined && !signal.aborted) {
    io.stderr(
      `maker: the run has stopped; the view stays open at ${view.url} — Ctrl-C to close it.\n`,
    );
    await new Promise<void>((done) =>
      signal.addEventListener('abort', () => done(), { once: true }),
    );
  }
  await view.close();
}
