import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { createInterface } from 'node:readline/promises';
import { UsageError } from '../../../core/errors.js';
import type { Question, Run, RunConfig } from '../../../core/tree/schema.js';
import type { Confidence } from '../../../core/tree/presets.js';
import type { MakerEngine, RunOutcome } from '../../../engine/maker-engine.js';
import { summarise } from '../../../engine/summary.js';
import { STATE_FILE_NAME, makerStateFile } from '../../../adapters/state/state-file.js';
import { WorkspaceLock } from '../../../adapters/state/lock.js';
import {
  engineFor,
  openWorkspace,
  preflight,
  rolesFor,
  runConfig,
  secretsOf,
} from '../../wiring.js';
import { julesConfig } from '../../jules-wiring.js';
import { addLocalOrigin, julesChoices } from '../jules-flags.js';
import { numberFlag, parseCommandArgs, rejectPositionals } from '../args.js';
import type { CliIo } from '../io.js';

export const RUN_HELP = `maker run — from an idea to a committed result, with MAKER's voting

Usage:
  maker run "<idea>" [--dir <repo>] [--worker gemini|jules|jules-fake|sim]
                     [--confidence low|medium|high] [--k N] [--hitl tty|auto|fail|defer]
                     [--seed S] [--max-depth N] [--concurrency N] [--model M]
                     [--jules-plan free|pro|ultra] [--jules-concurrency N]
                     [--jules-daily-sessions N] [--jules-plan-review] [--json]
  maker resume [--dir <repo>] [--run ID] [--hitl …] [--jules-… (raise the limits)] [--json]
  maker demo [--dir D] [--worker sim|jules-fake] [--seed S] [--json]

run: splits the idea into a tree of minimal subtasks (splits and "is this
minimal?" are voted), samples 2k-1 candidate changes per subtask, red-flags
suspect ones, votes first-to-ahead-by-k, composes the winners bottom-up on
branches maker/<run>/n-…, and lands the result on the default branch after a
final veto question. Everything is saved in <repo>/maker-state.json; a crash or
Ctrl-C loses nothing: run \`maker resume\`.

Options:
  --dir D          the git repository (created if missing; default: current directory)
  --worker W       gemini (needs GEMINI_API_KEY), jules (Jules sessions write the code;
                   needs JULES_API_KEY and GEMINI_API_KEY for planning, judging and merge
                   conflicts, and a GitHub origin connected to Jules, or JULES_SOURCE=
                   sources/github/<owner>/<repo>), jules-fake (the Jules protocol against
                   a local fake server with a simulated agent; offline) or sim (offline,
                   seeded; default sim)
  --confidence C   low (k=1), medium (k=2, default) or high (k=3): margin, caps, triggers
  --k N            override the vote margin
  --hitl H         how questions are answered: tty (ask here; default on a terminal),
                   defer (save and exit; default otherwise; answer with \`maker answer\`),
                   auto (take the leading candidate, accept the result), fail (stop)
  --seed S         seed of the sim worker (default 1)
  --max-depth N    deepest decomposition (default 3)
  --concurrency N  paid calls at once (default 4; with Jules, the session cap + 2,
                   as a session holds a slot while it runs)
  --model M        Gemini model (default gemini-2.5-flash)
  --run-checks     run each subtask's check command (proposed by the planner) on
                   every candidate, in a scratch checkout; a failing check is a red
                   flag. The commands come from the model: off unless asked.
  --json           print one JSON summary at the end

Jules (with --worker jules or jules-fake; kept in the state file, so a resume
keeps them):
  --jules-plan P             free (3 sessions at once, 15 per 24 h; default), pro
                             (15, 100) or ultra (60, 300): your plan's limits
  --jules-concurrency N      sessions at once (overrides the plan's)
  --jules-daily-sessions N   sessions started in any 24 hours, across every run in
                             this repository (overrides the plan's); when spent, the
                             run stops and says when \`maker resume\` can go on
  --jules-plan-review        ask you to approve or veto each session's plan
                             (default: plans are approved automatically)
Environment: JULES_API_KEY; JULES_SOURCE (the Jules source, when origin is not
the GitHub repository); JULES_BASE_URL (API endpoint); JULES_POLL_MS (first poll
delay and cap in ms, default 15000:60000).

demo: the whole pipeline offline on the sim planner in a fresh repository (a
temp directory unless --dir), questions answered automatically. --worker
jules-fake sends every candidate through the Jules REST protocol to a local fake
Jules server (with a local origin repository the leaf branches are pushed to).

Exit status: 0 done or vetoed, 4 waiting for answers, 1 failed, 2 usage error.
`;

const RUN_OPTIONS = {
  dir: { type: 'string' },
  worker: { type: 'string' },
  confidence: { type: 'string' },
  k: { type: 'string' },
  hitl: { type: 'string' },
  seed: { type: 'string' },
  'max-depth': { type: 'string' },
  concurrency: { type: 'string' },
  model: { type: 'string' },
  'run-checks': { type: 'boolean' },
  'jules-plan': { type: 'string' },
  'jules-concurrency': { type: 'string' },
  'jules-daily-sessions': { type: 'string' },
  'jules-plan-review': { type: 'boolean' },
  run: { type: 'string' },
  json: { type: 'boolean' },
  help: { type: 'boolean', short: 'h' },
} as const;

export async function runCommand(
  command: 'run' | 'resume' | 'demo',
  args: readonly string[],
  io: CliIo,
  signal?: AbortSignal,
): Promise<number> {
  const { values, positionals } = parseCommandArgs(command, args, RUN_OPTIONS);
  if (values.help === true) {
    io.stdout(RUN_HELP);
    return 0;
  }
  const json = values.json === true;
  const hitlChoice = values.hitl ?? (command === 'demo' ? 'auto' : io.stdinIsTty ? 'tty' : 'defer');
  if (!['tty', 'auto', 'fail', 'defer'].includes(hitlChoice))
    throw new UsageError(`--hitl must be tty, auto, fail or defer (got "${hitlChoice}").`);
  if (hitlChoice === 'tty' && !io.stdinIsTty)
    throw new UsageError(
      '--hitl tty needs a terminal; use --hitl defer (then `maker answer`), auto or fail.',
    );
  const hitl: RunConfig['hitl'] = hitlChoice === 'tty' ? 'wait' : (hitlChoice as RunConfig['hitl']);
  const julesFlags = julesChoices(values);

  let dir: string;
  let runId: string;
  let engine: MakerEngine;
  let roles: ReturnType<typeof rolesFor>;
  if (command === 'resume') {
    rejectPositionals(command, positionals);
    dir = resolve(values.dir ?? io.cwd);
    await new WorkspaceLock(join(dir, `${STATE_FILE_NAME}.lock`), { command }).holdUntilExit();
    const state = await makerStateFile(dir).load();
    const run = pickRun(state.runs, values.run, dir);
    if (values.hitl !== undefined) run.config.hitl = hitl;
    if (julesFlags !== undefined) {
      if (run.config.worker !== 'jules' && run.config.worker !== 'jules-fake')
        throw new UsageError(
          `Run ${run.id} does not use the jules worker: --jules-… flags do not apply.`,
        );
      run.config.jules = {
        ...(run.config.jules ?? julesConfig(run.config.worker)),
        ...julesFlags,
      };
    }
    const workspace = await openWorkspace(dir, false, io.env);
    roles = rolesFor(run.config, workspace, io.env);
    engine = engineFor(dir, workspace, roles, secretsOf(io.env), io.env);
    runId = run.id;
    const loaded = await engine.getRun(runId);
    if (values.hitl !== undefined) loaded.config.hitl = hitl;
    if (julesFlags !== undefined) loaded.config.jules = run.config.jules;
  } else {
    const idea =
      command === 'demo'
        ? (positionals[0] ?? 'a command-line tool that converts CSV files to JSON')
        : positionals[0];
    if (idea === undefined || idea.trim() === '')
      throw new UsageError(
        'maker run needs an idea: maker run "a CLI that converts CSV to Parquet".',
      );
    if (positionals.length > 1)
      throw new UsageError(
        `Unexpected argument "${positionals[1]}": quote the idea as one argument.`,
      );
    dir = resolve(
      values.dir ?? (command === 'demo' ? await mkdtemp(join(tmpdir(), 'maker-demo-')) : io.cwd),
    );
    const worker = (values.worker ?? 'sim') as RunConfig['worker'];
    const workers =
      command === 'demo' ? ['sim', 'jules-fake'] : ['sim', 'gemini', 'jules', 'jules-fake'];
    if (!workers.includes(worker))
      throw new UsageError(`--worker must be ${workers.join(', ')} (got "${worker}").`);
    if (julesFlags !== undefined && worker !== 'jules' && worker !== 'jules-fake')
      throw new UsageError('The --jules-… flags need --worker jules or jules-fake.');
    const confidence = (values.confidence ?? 'medium') as Confidence;
    if (!['low', 'medium', 'high'].includes(confidence))
      throw new UsageError(`--confidence must be low, medium or high (got "${confidence}").`);
    const workspace = await openWorkspace(dir, true, io.env);
    await new WorkspaceLock(join(dir, `${STATE_FILE_NAME}.lock`), { command }).holdUntilExit();
    if (command === 'demo' && worker === 'jules-fake') await addLocalOrigin(workspace);
    const head = await workspace.currentBranch();
    const k = numberFlag('k', values.k, { min: 1, max: 20, integer: true });
    const seed = numberFlag('seed', values.seed, { min: 0, integer: true });
    const maxDepth = numberFlag('max-depth', values['max-depth'], {
      min: 0,
      max: 8,
      integer: true,
    });
    const concurrency = numberFlag('concurrency', values.concurrency, {
      min: 1,
      max: 64,
      integer: true,
    });
    const config = runConfig({
      worker,
      ...(julesFlags === undefined ? {} : { jules: julesFlags }),
      confidence,
      hitl,
      defaultBranch: head,
      ...(k === undefined ? {} : { k }),
      ...(seed === undefined ? {} : { seed }),
      ...(maxDepth === undefined ? {} : { maxDepth }),
      ...(concurrency === undefined ? {} : { concurrency }),
      ...(values.model === undefined ? {} : { model: values.model }),
      runChecks: values['run-checks'] === true,
      ...(command === 'demo' ? { sim: { clarify: true } } : {}),
    });
    await preflight(config, workspace, io.env);
    roles = rolesFor(config, workspace, io.env);
    engine = engineFor(dir, workspace, roles, secretsOf(io.env), io.env);
    runId = await engine.create(idea, config);
    if (!json) io.stderr(`maker: run ${runId} in ${dir}\n`);
  }

  const stopWatching = new AbortController();
  const runControl = new AbortController();
  signal?.addEventListener('abort', () => runControl.abort(signal.reason), { once: true });
  const cancel = (reason: Error) => runControl.abort(reason);
  const watcher = watch(
    engine,
    runId,
    io,
    { json, ask: hitlChoice === 'tty', cancel },
    stopWatching.signal,
  );
  let outcome: RunOutcome;
  try {
    outcome = await engine.run(runId, { signal: runControl.signal });
  } finally {
    stopWatching.abort();
    await watcher;
    await roles.close?.();
  }
  const run = await engine.getRun(runId);
  const summary = { ...summarise(run), dir };
  if (json) io.stdout(`${JSON.stringify(summary)}\n`);
  else io.stdout(humanOutcome(run, outcome, dir));
  return exitCode(outcome.status);
}

function pickRun(runs: Readonly<Record<string, Run>>, id: string | undefined, dir: string): Run {
  if (id !== undefined) {
    const run = runs[id];
    if (run === undefined)
      throw new UsageError(
        `No run "${id}" in ${dir}. Runs: ${Object.keys(runs).join(', ') || 'none'}.`,
      );
    return run;
  }
  const open = Object.values(runs).filter((r) => r.status !== 'done' && r.status !== 'vetoed');
  const latest = open.sort((a, b) => a.createdAt.localeCompare(b.createdAt)).at(-1);
  if (latest === undefined) throw new UsageError(`Nothing to resume in ${dir}: no unfinished run.`);
  return latest;
}

/** Progress on a terminal, and (with --hitl tty) the questions asked there, one at a time. */
async function watch(
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
  const lines = rl?.[Symbol.asyncIterator]();
  let asking = Promise.resolve();
  let prompting = false;
  const counts = { samples: 0, flagged: 0, commits: 0, merges: 0 };
  const showProgress = io.stderrIsTty && !options.json;
  try {
    for await (const event of engine.events(signal)) {
      if (event.runId !== runId) continue;
      if (event.type === 'sample-drawn') counts.samples += 1;
      if (event.type === 'sample-flagged') {
        counts.samples += 1;
        counts.flagged += 1;
      }
      if (event.type === 'commit-end') counts.commits += 1;
      if (event.type === 'merge-end') counts.merges += 1;
      if (showProgress && !prompting)
        io.stderr(
          `\r\x1b[2Kmaker: ${counts.samples} samples (${counts.flagged} flagged) · ${counts.commits} subtasks committed · ${counts.merges} merges · ${event.type}${'nodeId' in event ? ` ${event.nodeId}` : ''}`,
        );
      if (event.type === 'question-asked' && lines !== undefined) {
        const question = event.question;
        asking = asking
          .then(async () => {
            prompting = true;
            if (showProgress) io.stderr('\r\x1b[2K');
            await askAtTty(engine, runId, question, io, lines);
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

async function askAtTty(
  engine: MakerEngine,
  runId: string,
  question: Question,
  io: CliIo,
  lines: AsyncIterator<string>,
): Promise<void> {
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
    const next = await lines.next();
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

function humanOutcome(run: Run, outcome: RunOutcome, dir: string): string {
  const s = summarise(run);
  const lines = [
    `Run ${run.id}: ${outcome.status} — ${s.nodes} nodes (${s.leaves} leaves), ${s.samples} samples, ${s.flagged} red-flagged${s.sessions > 0 ? `, ${s.sessions} Jules sessions` : ''}, ${s.questions} question(s).`,
  ];
  if (outcome.status === 'done')
    lines.push(`Landed on ${run.config.defaultBranch}: ${s.finalCommit} (tree ${s.treeHash}).`);
  if (outcome.status === 'vetoed')
    lines.push(
      `Vetoed: ${run.config.defaultBranch} is untouched; the result stays on ${s.rootBranch}.`,
    );
  if (outcome.status === 'failed')
    lines.push(`Failed: ${s.error}. Fix the cause, then: maker resume --dir ${dir}`);
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
