import { createInterface } from 'node:readline/promises';
import type { Question, Run } from '../../../core/tree/schema.js';
import type { MakerEngine, RunOutcome } from '../../../engine/maker-engine.js';
import { summarise } from '../../../engine/summary.js';
import { sentences } from '../../../core/text.js';
import type { CliIo } from '../io.js';

/** Progress on a terminal, and (with --hitl tty) the questions asked there, one at a time. */
export async function watch(
  engine: MakerEngine,
  runId: string,
  io: CliIo,
  options: { json: boolean; ask: boolean; cancel: (reason: Error) => void },
  signal: AbortSignal,
): Promise<void> {
  // One reader for the whole session, so answers typed ahead are not lost between questions.
  const rl = options.ask
    ? createInterface({ input: process.stdin, output: process.stderr, terminal: io.stdinIsTty })
    : undefined;
  const iterator = rl?.[Symbol.asyncIterator]();
  const nextLine = iterator === undefined ? undefined : lineReader(iterator);
  // Questions can also be answered elsewhere (the live view): the prompt then gives way.
  const answered = new Map<string, Elsewhere>();
  let asking = Promise.resolve();
  let prompting = false;
  const counts = { samples: 0, flagged: 0, commits: 0, merges: 0 };
  const showProgress = io.stderrIsTty && !options.json;
  /** Waits on services under way, by id: shown in the progress line, or as a line each when not a terminal. */
  const waits = new Map<string, { service: string; reason: string; until: string }>();
  try {
    for await (const event of engine.events(signal)) {
      if (event.runId !== runId) continue;
      if (event.type === 'wait-start') {
        const shown = [...waits.values()].some(
          (w) => w.service === event.service && w.reason === event.reason,
        );
        waits.set(event.waitId, event);
        // Several slots wait out one outage: one line for them all.
        if (!showProgress && !shown)
          io.stderr(
            `maker: waiting for ${event.service} until ${event.until.slice(11, 19)} UTC: ${event.reason}\n`,
          );
      }
      if (event.type === 'wait-end') waits.delete(event.waitId);
      if (event.type === 'sample-drawn') counts.samples += 1;
      if (event.type === 'sample-flagged') {
        counts.samples += 1;
        counts.flagged += 1;
      }
      if (event.type === 'commit-end') counts.commits += 1;
      if (event.type === 'merge-end') counts.merges += 1;
      if (showProgress && !prompting)
        io.stderr(
          `\r\x1b[2Kmaker: ${counts.samples} samples (${counts.flagged} flagged) · ${counts.commits} subtasks committed · ${counts.merges} merges · ${waitText(waits.values()) ?? `${event.type}${'nodeId' in event ? ` ${event.nodeId}` : ''}`}`,
        );
      if (event.type === 'question-answered') {
        const entry = answered.get(event.questionId);
        if (entry !== undefined) {
          entry.answer = event.answer;
          entry.resolve(event.answer);
        }
      }
      if (event.type === 'question-asked' && nextLine !== undefined) {
        const question = event.question;
        let resolve: (answer: string) => void = () => undefined;
        const promise = new Promise<string>((r) => (resolve = r));
        const entry: Elsewhere = { promise, resolve };
        answered.set(question.id, entry);
        asking = asking
          .then(async () => {
            prompting = true;
            if (showProgress) io.stderr('\r\x1b[2K');
            await askAtTty(engine, runId, question, io, nextLine, entry);
          })
          .catch((error: unknown) => {
            io.stderr(`maker: ${(error as Error).message}\n`);
            // Nobody is left to answer: stop the run; the question stays pending in the state file.
            options.cancel(error as Error);
          })
          .finally(() => (prompting = false));
      }
    }
    await asking;
  } finally {
    if (showProgress) io.stderr('\r\x1b[2K');
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
  engine: MakerEngine,
  runId: string,
  question: Question,
  io: CliIo,
  nextLine: () => Promise<IteratorResult<string>>,
  answered: Elsewhere,
): Promise<void> {
  if (answered.answer !== undefined) return;
  const elsewhere = answered.promise.then((answer) => ({ elsewhere: answer }));
  io.stderr(`\n? ${question.prompt}\n`);
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
    const next = await Promise.race([nextLine(), elsewhere]);
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
      await engine.answer(runId, question.id, reply);
      return;
    } catch (error) {
      io.stderr(`${(error as Error).message}\n`);
    }
  }
}

/** The latest-ending wait per service, for the progress line: "waiting for jules until 10:12:03 UTC". */
function waitText(waits: Iterable<{ service: string; until: string }>): string | undefined {
  const latest = new Map<string, string>();
  for (const w of waits)
    if ((latest.get(w.service) ?? '') < w.until) latest.set(w.service, w.until);
  if (latest.size === 0) return undefined;
  return [...latest]
    .map(([service, until]) => `waiting for ${service} until ${until.slice(11, 19)} UTC`)
    .join(', ');
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
  if (outcome.status === 'done')
    lines.push(`Landed on ${run.config.defaultBranch}: ${s.finalCommit} (tree ${s.treeHash}).`);
  if (outcome.status === 'vetoed')
    lines.push(
      `Vetoed: ${run.config.defaultBranch} is untouched; the result stays on ${s.rootBranch}.`,
    );
  if (outcome.status === 'failed')
    lines.push(sentences(`Failed: ${s.error}`, `Fix the cause, then: maker resume --dir ${dir}`));
  if (outcome.status === 'cancelled')
    lines.push(`Cancelled. Continue with: maker resume --dir ${dir}`);
  if (outcome.status === 'awaiting-human') {
    lines.push('Waiting for answers:');
    for (const q of outcome.pending)
      lines.push(
        `  ${q.id} (${q.kind}): ${q.prompt}\n    options: ${q.options.map((o) => `${o.id} = ${o.label}`).join('; ')}`,
      );
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
    case 'cancelled':
      return 130;
    default:
      return 1;
  }
}
