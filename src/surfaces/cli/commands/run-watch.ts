import { checksSentence } from '../../../core/checks.js';
import { answerQuestion } from '../../../app/answer-question.js';
import type { Question, Run } from '../../../core/tree/schema.js';
import type { RunEngine, RunOutcome } from '../../../app/run-engine.js';
import { githubLines, summarise } from '../../../core/view/summary.js';
import { sentences } from '../../../core/text.js';
import type { CliIo } from '../io.js';
import { terminalReader } from '../prompt.js';
import { runProgress } from './run-progress.js';
import { questionLines } from './status-text.js';

/**
 * Progress (unless --json), and (with --hitl tty) the questions asked at the terminal, one at a
 * time: those the run asks, and those it left pending before (a resumed run asks them again).
 */
export async function watch(
  engine: RunEngine,
  runId: string,
  io: CliIo,
  options: { json: boolean; ask: boolean; cancel: (reason: Error) => void },
  signal: AbortSignal,
): Promise<void> {
  // One reader for the whole session, so answers typed ahead are not lost between questions.
  const rl = options.ask ? terminalReader() : undefined;
  const iterator = rl?.[Symbol.asyncIterator]();
  const nextLine = iterator === undefined ? undefined : lineReader(iterator);
  // Subscribed before anything is awaited, so no event of the run is missed.
  const events = engine.events(signal);
  const run = await engine.getRun(runId);
  const progress = options.json ? undefined : runProgress(io, run);
  // Questions can also be answered elsewhere (the live view): the prompt then gives way.
  const answered = new Map<string, Elsewhere>();
  let asking = Promise.resolve();
  let prompting = false;
  const ask = (question: Question, nextLine: () => Promise<IteratorResult<string>>) => {
    if (answered.has(question.id)) return;
    let resolve: (answer: string) => void = () => undefined;
    const promise = new Promise<string>((r) => (resolve = r));
    const entry: Elsewhere = { promise, resolve };
    answered.set(question.id, entry);
    asking = asking
      .then(async () => {
        prompting = true;
        progress?.clear();
        await askAtTty(engine, runId, question, io, { nextLine, answered: entry, ended: signal });
      })
      .catch((error: unknown) => {
        io.stderr(`maker: ${(error as Error).message}\n`);
        // Nobody is left to answer: stop the run; the question stays pending in the state file.
        options.cancel(error as Error);
      })
      .finally(() => (prompting = false));
  };
  if (nextLine !== undefined)
    for (const question of run.questions.filter((q) => q.answer === undefined))
      ask(question, nextLine);
  try {
    for await (const event of events) {
      if (event.runId !== runId) continue;
      if (!prompting) progress?.event(event);
      if (event.type === 'question-answered') {
        const entry = answered.get(event.questionId);
        if (entry !== undefined) {
          entry.answer = event.answer;
          entry.resolve(event.answer);
        }
      }
      if (event.type === 'question-asked' && nextLine !== undefined) ask(event.question, nextLine);
    }
    await asking;
  } finally {
    progress?.clear();
    rl?.close();
  }
}

/** A question's answer from another place than this terminal (the live view). */
interface Elsewhere {
  readonly promise: Promise<string>;
  readonly resolve: (answer: string) => void;
  answer?: string;
}

/**
 * Reads lines one at a time; a read whose prompt was abandoned (the question was answered
 * elsewhere) is handed to the next prompt, so no typed line is lost.
 */
function lineReader(lines: AsyncIterator<string>): () => Promise<IteratorResult<string>> {
  let pending: Promise<IteratorResult<string>> | undefined;
  return () =>
    (pending ??= lines.next().then((result) => {
      pending = undefined;
      return result;
    }));
}

async function askAtTty(
  engine: RunEngine,
  runId: string,
  question: Question,
  io: CliIo,
  {
    nextLine,
    answered,
    ended,
  }: {
    nextLine: () => Promise<IteratorResult<string>>;
    answered: Elsewhere;
    /** Aborted when the run ended (or was interrupted): a prompt on screen then gives way. */
    ended: AbortSignal;
  },
): Promise<void> {
  if (answered.answer !== undefined || ended.aborted) return;
  const elsewhere = answered.promise.then((answer) => ({ elsewhere: answer }));
  const stopped = new Promise<{ stopped: true }>((resolve) =>
    ended.addEventListener('abort', () => resolve({ stopped: true }), { once: true }),
  );
  io.stderr(`\n? ${question.prompt}\n`);
  if (question.context !== undefined && question.context !== '')
    io.stderr(
      `${question.context
        .split('\n')
        .slice(0, 25)
        .map((l) => `  ${l}`)
        .join('\n')}\n`,
    );
  question.options.forEach((o, i) =>
    io.stderr(
      `  ${i + 1}) ${o.label}${
        o.detail
          ? `\n${o.detail
              .split('\n')
              .slice(0, 12)
              .map((l) => `       ${l}`)
              .join('\n')}`
          : ''
      }\n`,
    ),
  );
  for (;;) {
    io.stderr(question.allowText ? 'Choose a number, or type an answer: ' : 'Choose a number: ');
    const next = await Promise.race([nextLine(), elsewhere, stopped]);
    if ('stopped' in next) {
      // The question stays pending in the state file; the run's outcome says what to do next.
      io.stderr('\n');
      return;
    }
    if ('elsewhere' in next) {
      io.stderr(`\n(answered elsewhere: ${next.elsewhere})\n`);
      return;
    }
    if (next.done === true)
      throw new Error(
        `Input ended before question ${question.id} was answered; it stays pending (maker answer, then maker resume).`,
      );
    const reply = next.value.trim();
    try {
      await answerQuestion({ engine }, { runId, questionId: question.id, answer: reply });
      return;
    } catch (error) {
      io.stderr(`${(error as Error).message}\n`);
    }
  }
}

export function humanOutcome(run: Run, outcome: RunOutcome, dir: string): string {
  const s = summarise(run);
  const lines = [
    `${s.simulated ? 'SIMULATED run' : 'Run'} ${run.id}: ${outcome.status} — ${s.nodes} nodes (${s.leaves} leaves), ${s.samples} samples, ${s.flagged} red-flagged${s.sessions > 0 ? `, ${s.sessions} Jules sessions` : ''}, ${s.questions} question(s).`,
  ];
  if (s.simulated)
    lines.push(
      `Simulated with the ${run.config.worker} worker: the plans and files are placeholders, not real work.`,
    );
  lines.push(`Directory: ${dir}`);
  if (run.github?.demoFake === true)
    // The demo's own fake GitHub lived in the demo's process: its addresses are dead once it ends.
    lines.push(
      ...githubLines(run).map((l) =>
        l.replace(
          /^GitHub: /,
          "SIMULATED GitHub (the demo's own fake, its world kept in .git/maker-fake-github/; these addresses lived while the demo ran): ",
        ),
      ),
      ...(['done', 'vetoed'].includes(outcome.status)
        ? []
        : [`  \`maker resume --dir ${dir}\` serves it again and continues the run.`]),
    );
  else lines.push(...githubLines(run));
  lines.push(`Checks: ${checksSentence(run)}`);
  if (outcome.status === 'done')
    lines.push(`Landed on ${run.config.defaultBranch}: ${s.finalCommit} (tree ${s.treeHash}).`);
  if (outcome.status === 'vetoed')
    lines.push(
      `Vetoed: ${run.config.defaultBranch} is untouched; the result stays on ${s.rootBranch}.`,
    );
  if (outcome.status === 'failed')
    lines.push(sentences(`Failed: ${s.error}`, `Fix the cause, then: maker resume --dir ${dir}`));
  if (outcome.status === 'failed-checks')
    lines.push(
      sentences(
        `Not landed: ${s.error}`,
        `To land it anyway: maker answer --dir ${dir} ${outcome.pending.find((q) => q.kind === 'veto')?.id ?? 'q-root-veto'} accept, then: maker resume --dir ${dir}`,
      ),
    );
  if (outcome.status === 'cancelled')
    lines.push(
      `Cancelled (interrupted): nothing is lost. Left: run ${run.id} in ${dir}/maker-state.json${run.github === undefined ? '' : ` and its GitHub repository ${run.github.url}`}, the workspace's lock released. Continue with: maker resume --dir ${dir}`,
    );
  if (outcome.status === 'awaiting-human') {
    lines.push('Waiting for answers:', ...outcome.pending.flatMap((q) => questionLines(q)));
    lines.push(
      `Answer with: maker answer --dir ${dir} <questionId> <option or text>, then: maker resume --dir ${dir}`,
    );
  }
  return `${lines.join('\n')}\n`;
}

export function exitCode(status: Run['status']): number {
  switch (status) {
    case 'done':
    case 'vetoed':
      return 0;
    case 'awaiting-human':
      return 4;
    case 'failed-checks':
      return 5;
    case 'cancelled':
      return 130;
    default:
      return 1;
  }
}
