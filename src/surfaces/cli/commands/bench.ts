import { ConfigError, UsageError } from '../../../core/errors.js';
import { GeminiModel } from '../../../adapters/gemini/gemini-model.js';
import { runHanoiBench, type HanoiBenchReport } from '../../bench/hanoi-bench.js';
import { runTreeBench } from '../../bench/tree-bench.js';
import { runMcpStartBench } from '../../bench/mcp-start-bench.js';
import { runJulesBench } from '../../bench/jules-bench.js';
import { existsSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { numberFlag, parseCommandArgs, rejectPositionals } from '../args.js';
import { formatCount, progressLine, type CliIo } from '../io.js';

export const BENCH_HELP = `maker bench — measured benchmarks

Usage:
  maker bench hanoi [options]
  maker bench tree [--leaves N] [--latency-ms L] [--concurrency C] [--k K]
                   [--workspace memory|git] [--state-nodes N] [--json]
  maker bench mcp-start [--runs N] [--json]
  maker bench jules [--leaves N] [--candidates N] [--work-ms W] [--concurrency C]
                    [--poll-ms P] [--poll-factor F] [--poll-max M] [--repeats R] [--json]

hanoi: the MAKER paper's benchmark. Towers of Hanoi with one move per agent
call (m = 1): each step sees only the strategy, the current state and the
previous move, answers "move = [disk, from, to]" and "next_state = [[...]]",
is red-flagged by the 750-token cap and the paper's strict parser, and is
decided by first-to-ahead-by-k voting on the (move, next_state) pair. The
winner's next_state feeds the next step. An oracle scores every step, so
"errors: 0" is checked, not assumed. 20 disks = 1,048,575 steps.

Options:
  --disks N        number of disks (default 20)
  --k K            vote margin (default 3, the paper's k_min for this run)
  --initial B      first batch per step: a number, "k" (default) or "2k-1"
  --max-draws N    per-step cap on draws; an undecided step stops the run
  --model M        "sim" (default, offline and seeded) or a Gemini model such
                   as gemini-2.5-flash (needs GEMINI_API_KEY; costs money:
                   start with --disks 3 or --steps 10; GOOGLE_GEMINI_BASE_URL
                   overrides the API address)
  --p P            sim: per-sample success on ordinary steps (default 0.9978,
                   gpt-4.1-mini's measured rate)
  --v V            sim: share of samples that pass red-flagging (default 0.995)
  --seed S         sim: seed (default 1); the same seed gives the same run
  --steps N        stop after N steps (default: all 2^disks - 1)
  --thinking-budget N
                   Gemini thinking models: hidden-reasoning tokens per call.
                   Thinking counts against the 750-token cap, so use 0 (off,
                   like the paper's gpt-4.1-mini) where the model allows it
  --no-reference   sim: skip timing the bare synchronous reference loop
  --json           print one JSON object (progress, if any, goes to stderr)

tree: the engine's scheduling. A run over N minimal subtasks (default 200),
every paid call (planner, judge, worker) taking L ms (default 50), at most C at
once (default 8), against the ideal schedule: all paid calls spread evenly over
the cap, or the critical path, whichever is longer. --workspace git adds real git
for every candidate tree, commit and merge (default memory). Also times saving a
state file of --state-nodes nodes (default 10,000).

jules: the Jules worker's overhead. N leaves (default 3) x N candidates (default
5) sampled at once through the real worker and client against the local fake
Jules server, each session taking W ms of simulated work (default 100), at most
C sessions at once (default 15). The leaves' branches are pushed to a real bare
origin first, as the engine does when a node starts (timed apart). Reports the
median wall time of sampling over R repeats (default 5) against the ideal,
ceil(sessions / C) x W, the same with the push (cold), and the HTTP requests per
session. Sessions are polled from P ms after creation (default 40), the delay growing by F per poll
(default 1.5) up to M ms (default 1000): the production schedule is 15 s, x1.5,
60 s (JULES_POLL_MS), for sessions that take minutes.

mcp-start: cold starts of the bundled MCP server (dist/maker-mcp.js next to
this file), from spawning node to the answer of tools/list, N times (default 10).

Exit status: 0 when the puzzle is solved with zero errors, 1 when it is not
(the report says why), 2 for a usage error.

Examples:
  maker bench hanoi --disks 20                 # the million-step run, simulated
  maker bench hanoi --disks 20 --k 2 --json    # usually fails: k = 2 is too small
  GEMINI_API_KEY=... maker bench hanoi --model gemini-2.5-flash --disks 3
`;

export async function benchCommand(
  args: readonly string[],
  io: CliIo,
  signal?: AbortSignal,
): Promise<number> {
  const [target, ...rest] = args;
  if (target === undefined || target === '--help' || target === '-h' || target === 'help') {
    io.stdout(BENCH_HELP);
    return target === undefined ? 2 : 0;
  }
  if (target === 'tree') return treeBench(rest, io);
  if (target === 'mcp-start') return mcpStartBench(rest, io);
  if (target === 'jules') return julesBench(rest, io);
  if (target !== 'hanoi')
    throw new UsageError(
      `Unknown benchmark "${target}". Available: hanoi, tree, mcp-start. See \`maker bench --help\`.`,
    );
  const { values, positionals } = parseCommandArgs('bench hanoi', rest, {
    disks: { type: 'string' },
    k: { type: 'string' },
    initial: { type: 'string' },
    'max-draws': { type: 'string' },
    model: { type: 'string' },
    p: { type: 'string' },
    v: { type: 'string' },
    seed: { type: 'string' },
    steps: { type: 'string' },
    'thinking-budget': { type: 'string' },
    'no-reference': { type: 'boolean' },
    json: { type: 'boolean' },
    help: { type: 'boolean', short: 'h' },
  });
  if (values.help === true) {
    io.stdout(BENCH_HELP);
    return 0;
  }
  rejectPositionals('bench hanoi', positionals);
  const disks = numberFlag('disks', values.disks, { min: 1, max: 30, integer: true }) ?? 20;
  const k = numberFlag('k', values.k, { min: 1, max: 1000, integer: true }) ?? 3;
  const initialBatch = parseInitial(values.initial, k);
  const maxDraws = numberFlag('max-draws', values['max-draws'], { min: 1, integer: true });
  const p = numberFlag('p', values.p, { min: 0, max: 1 }) ?? 0.9978;
  const v = numberFlag('v', values.v, { min: 0, max: 1, exclusiveMin: true }) ?? 0.995;
  const seed = numberFlag('seed', values.seed, { min: 0, max: 2 ** 32 - 1, integer: true }) ?? 1;
  const steps = numberFlag('steps', values.steps, { min: 0, integer: true });
  const thinkingBudget = numberFlag('thinking-budget', values['thinking-budget'], {
    min: 0,
    integer: true,
  });
  const modelName = typeof values.model === 'string' ? values.model : 'sim';
  const model = modelName === 'sim' ? ('sim' as const) : geminiModel(modelName, io);
  const json = values.json === true;

  const progress = progressLine(io, 'hanoi: step');
  const report = await runHanoiBench({
    disks,
    k,
    model,
    p,
    v,
    seed,
    initialBatch,
    ...(maxDraws === undefined ? {} : { maxDraws }),
    ...(steps === undefined ? {} : { steps }),
    ...(thinkingBudget === undefined ? {} : { thinkingBudget }),
    reference: values['no-reference'] !== true,
    ...(signal === undefined ? {} : { signal }),
    onProgress: (done, total) => progress.update(done, total),
  });
  progress.done();
  io.stdout(json ? `${JSON.stringify(report)}\n` : humanReport(report));
  return report.solved ? 0 : 1;
}

function parseInitial(raw: string | boolean | undefined, k: number): number {
  if (raw === undefined || raw === 'k') return k;
  if (raw === '2k-1' || raw === '2k−1') return 2 * k - 1;
  return numberFlag('initial', raw, { min: 1, integer: true }) as number;
}

function geminiModel(name: string, io: CliIo): GeminiModel {
  if (!name.startsWith('gemini-'))
    throw new UsageError(
      `Unknown model "${name}": use "sim" or a Gemini model name such as gemini-2.5-flash.`,
    );
  const apiKey = io.env['GEMINI_API_KEY'] ?? '';
  if (apiKey === '')
    throw new ConfigError(
      `--model ${name} needs GEMINI_API_KEY in the environment (or use --model sim, which is offline).`,
    );
  const baseUrl = io.env['GOOGLE_GEMINI_BASE_URL'];
  return new GeminiModel({ model: name, apiKey, ...(baseUrl ? { baseUrl } : {}) });
}

function humanReport(r: HanoiBenchReport): string {
  const lines: string[] = [];
  const model = r.model === 'sim' ? `sim (p = ${r.p}, v = ${r.v}, seed ${r.seed})` : r.model;
  lines.push(
    `Towers of Hanoi, ${r.disks} disks: ${formatCount(r.steps)} steps, k = ${r.k}, first batch ${r.initialBatch}, model ${model}`,
  );
  if (r.solved) lines.push('Solved with zero errors.');
  else lines.push(`NOT solved: ${failureReasons(r).join('; then ')}.`);
  lines.push(
    `  samples           ${formatCount(r.samples)} (${formatCount(r.validSamples)} valid, ${formatCount(r.flagged)} red-flagged)`,
  );
  const theory =
    r.theory === null
      ? ''
      : ` (theory ${r.theory.validVotesPerStep}, ratio ${r.validVotesVsTheory})`;
  lines.push(`  valid votes/step  ${r.validVotesPerStep}${theory}`);
  lines.push(`  max draws/step    ${r.maxDrawsPerStep} (max rounds ${r.maxRoundsPerStep})`);
  lines.push(
    `  collisions        ${formatCount(r.collisions)} step(s) whose first two valid votes were both wrong`,
  );
  if (r.undecidedAfterRound.length > 0)
    lines.push(
      `  undecided after round: ${r.undecidedAfterRound
        .slice(0, 12)
        .map((n, i) => `${i + 1}: ${formatCount(n)}`)
        .join('  ')}${r.undecidedAfterRound.length > 12 ? '  …' : ''}`,
    );
  lines.push(
    `  wall              ${(r.wallMs / 1000).toFixed(2)} s, ${formatCount(r.samplesPerSecond)} samples/s, peak RSS ${r.peakRssMb} MB`,
  );
  if (r.reference !== null)
    lines.push(
      `  reference loop    ${(r.reference.wallMs / 1000).toFixed(2)} s (voter overhead ratio ${r.reference.ratio})`,
    );
  if (r.theory !== null) lines.push(`  theory: P(solved) = ${r.theory.pFull} at this p and k`);
  return `${lines.join('\n')}\n`;
}

function failureReasons(r: HanoiBenchReport): string[] {
  const why: string[] = [];
  if (r.errors > 0)
    why.push(
      `${formatCount(r.errors)} step(s) decided wrongly (first at step ${formatCount(r.errorSteps[0] ?? 0)})`,
    );
  if (r.stoppedEarly !== undefined)
    why.push(`stopped at step ${formatCount(r.stoppedEarly.step)}: ${r.stoppedEarly.reason}`);
  if (why.length === 0) why.push('the final state is not the goal');
  return why;
}

async function treeBench(args: readonly string[], io: CliIo): Promise<number> {
  const { values, positionals } = parseCommandArgs('bench tree', args, {
    leaves: { type: 'string' },
    'latency-ms': { type: 'string' },
    concurrency: { type: 'string' },
    k: { type: 'string' },
    workspace: { type: 'string' },
    'state-nodes': { type: 'string' },
    json: { type: 'boolean' },
    help: { type: 'boolean', short: 'h' },
  });
  if (values.help === true) {
    io.stdout(BENCH_HELP);
    return 0;
  }
  rejectPositionals('bench tree', positionals);
  const workspace = values.workspace ?? 'memory';
  if (workspace !== 'memory' && workspace !== 'git')
    throw new UsageError(`--workspace must be memory or git (got "${workspace}").`);
  const report = await runTreeBench({
    leaves: numberFlag('leaves', values.leaves, { min: 1, max: 5000, integer: true }) ?? 200,
    latencyMs:
      numberFlag('latency-ms', values['latency-ms'], { min: 0, max: 10_000, integer: true }) ?? 50,
    concurrency:
      numberFlag('concurrency', values.concurrency, { min: 1, max: 256, integer: true }) ?? 8,
    k: numberFlag('k', values.k, { min: 1, max: 10, integer: true }) ?? 2,
    workspace,
    stateNodes:
      numberFlag('state-nodes', values['state-nodes'], { min: 1, max: 200_000, integer: true }) ??
      10_000,
  });
  io.stdout(
    values.json === true
      ? `${JSON.stringify(report)}\n`
      : `Tree: ${report.leaves} leaves (${report.nodes} nodes), ${report.paidCalls} paid calls of ${report.latencyMs} ms, concurrency ${report.concurrency}, ${report.workspace} workspace: ${report.status}\n  wall ${report.wallMs} ms vs ideal ${report.idealMs} ms: ratio ${report.ratio}\n  state save, ${formatCount(report.stateSave.nodes)} nodes (${formatCount(report.stateSave.bytes)} bytes): ${report.stateSave.medianMs} ms (median of 7)\n`,
  );
  return report.status === 'done' ? 0 : 1;
}

async function julesBench(args: readonly string[], io: CliIo): Promise<number> {
  const { values, positionals } = parseCommandArgs('bench jules', args, {
    leaves: { type: 'string' },
    candidates: { type: 'string' },
    'work-ms': { type: 'string' },
    concurrency: { type: 'string' },
    'poll-ms': { type: 'string' },
    'poll-factor': { type: 'string' },
    'poll-max': { type: 'string' },
    repeats: { type: 'string' },
    json: { type: 'boolean' },
    help: { type: 'boolean', short: 'h' },
  });
  if (values.help === true) {
    io.stdout(BENCH_HELP);
    return 0;
  }
  rejectPositionals('bench jules', positionals);
  const int = (name: string, raw: string | undefined, min: number, max: number, dflt: number) =>
    numberFlag(name, raw, { min, max, integer: true }) ?? dflt;
  const cliPath = join(dirname(fileURLToPath(import.meta.url)), 'maker.js');
  if (!existsSync(cliPath))
    throw new UsageError(`No bundled CLI at ${cliPath}: run npm run build.`);
  const report = await runJulesBench({
    cliPath,
    leaves: int('leaves', values.leaves, 1, 50, 3),
    candidates: int('candidates', values.candidates, 1, 20, 5),
    workMs: int('work-ms', values['work-ms'], 0, 60_000, 100),
    concurrency: int('concurrency', values.concurrency, 1, 100, 15),
    poll: {
      initial: int('poll-ms', values['poll-ms'], 1, 60_000, 40),
      factor: numberFlag('poll-factor', values['poll-factor'], { min: 1, max: 4 }) ?? 1.5,
      max: int('poll-max', values['poll-max'], 1, 600_000, 1000),
    },
    repeats: int('repeats', values.repeats, 1, 100, 5),
  });
  io.stdout(
    values.json === true
      ? `${JSON.stringify(report)}\n`
      : `Jules: ${report.leaves} leaves x ${report.candidates} candidates = ${report.sessions} sessions of ${report.workMs} ms, cap ${report.concurrency}, first poll ${report.poll.initial} ms x${report.poll.factor}\n  wall ${report.wallMs.median} ms (median of ${report.repeats}; ${report.wallMs.min}-${report.wallMs.max}) vs ideal ${report.idealMs} ms: ratio ${report.ratio}\n  branches published in ${report.publishMs} ms beforehand (with them: ratio ${report.coldRatio})\n  ${report.requestsPerSession} requests per session: ${Object.entries(
          report.requestsByKind,
        )
          .map(([kind, n]) => `${kind} x${n}`)
          .join(', ')}\n`,
  );
  return report.candidatesValid ? 0 : 1;
}

async function mcpStartBench(args: readonly string[], io: CliIo): Promise<number> {
  const { values, positionals } = parseCommandArgs('bench mcp-start', args, {
    runs: { type: 'string' },
    json: { type: 'boolean' },
    help: { type: 'boolean', short: 'h' },
  });
  if (values.help === true) {
    io.stdout(BENCH_HELP);
    return 0;
  }
  rejectPositionals('bench mcp-start', positionals);
  const serverPath = join(dirname(fileURLToPath(import.meta.url)), 'maker-mcp.js');
  if (!existsSync(serverPath))
    throw new UsageError(`No bundled server at ${serverPath}: run npm run build.`);
  const report = await runMcpStartBench({
    serverPath,
    runs: numberFlag('runs', values.runs, { min: 1, max: 200, integer: true }) ?? 10,
  });
  io.stdout(
    values.json === true
      ? `${JSON.stringify(report)}\n`
      : `MCP server cold start to tools/list, ${report.runs} runs: median ${report.medianMs} ms, p90 ${report.p90Ms} ms (min ${report.minMs}, max ${report.maxMs})\n`,
  );
  return 0;
}
