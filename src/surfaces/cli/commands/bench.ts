import { existsSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { UsageError } from '../../../core/errors.js';
import { MAX_BENCH_LEAVES } from '../../bench/tree-shape.js';
import { defineCommand, flag, option, type GroupSpec, type RunOf } from '../define.js';
import { formatCount } from '../io.js';
import { decimal, oneOf, wholeNumber } from '../values.js';

const json = flag('--json', 'print one JSON object');
const measured: readonly (readonly [number, string])[] = [
  [0, 'measured'],
  [1, 'the measured run did not finish as expected'],
  [2, 'usage error'],
];

/** A file bundled next to this one in dist/ (the CLI and the MCP server). */
function bundled(name: string, what: string): string {
  const path = join(dirname(fileURLToPath(import.meta.url)), name);
  if (!existsSync(path)) throw new UsageError(`No bundled ${what} at ${path}: run npm run build.`);
  return path;
}

export const benchTreeCommand = defineCommand({
  name: 'tree',
  summary: "the engine's scheduling against the ideal schedule",
  description: `The engine's scheduling. A run over exactly N minimal subtasks (a balanced tree
of at most 8 children a node), every paid call (planner, judge, worker) taking
L ms, at most C at once, against the ideal schedule: all paid calls spread
evenly over the cap, or the critical path, or the run's own CPU time (the
engine is one thread: the whole ideal at latency 0), whichever is longer.
--workspace git adds real git for every candidate tree, commit and merge.
Reports the leaves the run had, the cost per node, the process's peak RSS
(in all and per node), and what the run's state saves took (share of wall and CPU time, bytes written per node). Also times
saving a state file of --state-nodes nodes. Exits 1 when the run did not finish with exactly N leaves.`,
  options: {
    leaves: option(
      '--leaves <n>',
      'minimal subtasks, exactly (default 200, at most 10,000)',
      wholeNumber({ min: 1, max: MAX_BENCH_LEAVES }),
    ),
    latencyMs: option(
      '--latency-ms <ms>',
      'each paid call, in ms (default 50)',
      wholeNumber({ min: 0, max: 10_000 }),
    ),
    concurrency: option(
      '--concurrency <n>',
      'paid calls at once (default 8)',
      wholeNumber({ min: 1, max: 256 }),
    ),
    k: option('--k <k>', 'vote margin (default 2)', wholeNumber({ min: 1, max: 10 })),
    workspace: option('--workspace <kind>', 'memory (default) or git', oneOf(['memory', 'git'])),
    stateNodes: option(
      '--state-nodes <n>',
      'nodes in the timed state file save (default 10,000)',
      wholeNumber({ min: 1, max: 200_000 }),
    ),
    json,
  },
  exits: measured,
});

/** Carries `maker bench tree` out. */
export const benchTreeRun: RunOf<typeof benchTreeCommand> = {
  run: async ({ options: o }, { io }) => {
    // Loaded when run: `maker --help` and the other benchmarks never load the engine.
    const { runTreeBench } = await import('../../bench/tree-bench.js');
    const report = await runTreeBench({
      leaves: o.leaves ?? 200,
      latencyMs: o.latencyMs ?? 50,
      concurrency: o.concurrency ?? 8,
      k: o.k ?? 2,
      workspace: o.workspace ?? 'memory',
      stateNodes: o.stateNodes ?? 10_000,
    });
    const saves = report.saves;
    io.stdout(
      o.json === true
        ? `${JSON.stringify(report)}\n`
        : [
            `Tree: ${report.leaves} of ${report.leavesRequested} leaves asked (${report.nodes} nodes, depth ${report.depth}), ${report.paidCalls} paid calls of ${report.latencyMs} ms, concurrency ${report.concurrency}, ${report.workspace} workspace: ${report.status}`,
            `  wall ${report.wallMs} ms vs ideal ${report.idealMs} ms: ratio ${report.ratio}; ${report.perNodeMs} ms wall, ${report.perNodeCpuMs} ms CPU per node`,
            `  peak RSS ${report.peakRssMb} MB, ${report.peakRssPerNodeKb} KB per node`,
            ...(report.workspace === 'git'
              ? [
                  `  git processes: ${formatCount(report.gitProcesses.total)} (${report.gitProcesses.perNode} per node): ${Object.entries(
                    report.gitProcesses.byCommand,
                  )
                    .map(([c, n]) => `${c} ${n}`)
                    .join(', ')}`,
                ]
              : []),
            `  state saves: ${formatCount(saves.count)}, ${Math.round(saves.wallShare * 100)}% of wall, ${Math.round(saves.cpuShare * 100)}% of CPU serialising, ${formatCount(saves.bytesPerNode)} bytes written per node`,
            `  state save, ${formatCount(report.stateSave.nodes)} nodes (${formatCount(report.stateSave.bytes)} bytes): ${report.stateSave.medianMs} ms (median of 7)`,
            '',
          ].join('\n'),
    );
    if (report.leaves !== report.leavesRequested) return 1;
    return report.status === 'done' ? 0 : 1;
  },
};

export const benchJulesCommand = defineCommand({
  name: 'jules',
  summary: "the Jules worker's overhead against the fake Jules server",
  description: `The Jules worker's overhead. N leaves x N candidates sampled at once through
the real worker and client against the local fake Jules server (its own
process), each session taking W ms of simulated work, at most C sessions at
once. The leaves' branches are pushed to a real bare origin first, as the
engine does when a node starts (timed apart). Reports the median wall time of
sampling over R repeats against the ideal, ceil(sessions / C) x W, the same with
the push (cold), and the HTTP requests per session. Sessions are polled from P
ms after creation, the delay growing by F per poll up to M ms: the production
schedule is 15 s, x1.5, 60 s (JULES_POLL_MS), for sessions that take minutes.`,
  options: {
    leaves: option('--leaves <n>', 'leaves (default 3)', wholeNumber({ min: 1, max: 50 })),
    candidates: option(
      '--candidates <n>',
      'candidates per leaf (default 5)',
      wholeNumber({ min: 1, max: 20 }),
    ),
    workMs: option(
      '--work-ms <ms>',
      'simulated work per session (default 100)',
      wholeNumber({ min: 0, max: 60_000 }),
    ),
    concurrency: option(
      '--concurrency <n>',
      'sessions at once (default 15)',
      wholeNumber({ min: 1, max: 100 }),
    ),
    pollMs: option(
      '--poll-ms <ms>',
      'first poll after creation (default 40)',
      wholeNumber({ min: 1, max: 60_000 }),
    ),
    pollFactor: option(
      '--poll-factor <f>',
      'growth of the poll delay (default 1.5)',
      decimal({ min: 1, max: 4 }),
    ),
    pollMax: option(
      '--poll-max <ms>',
      'longest poll delay (default 1000)',
      wholeNumber({ min: 1, max: 600_000 }),
    ),
    repeats: option(
      '--repeats <n>',
      'repeats; the median is reported (default 5)',
      wholeNumber({ min: 1, max: 100 }),
    ),
    warmup: option(
      '--warmup <n>',
      'trials run first and left out of the median, their walls reported apart (default 0: every trial counts, the first with a cold JIT in both processes)',
      wholeNumber({ min: 0, max: 100 }),
    ),
    json,
  },
  exits: measured,
});

/** Carries `maker bench jules` out. */
export const benchJulesRun: RunOf<typeof benchJulesCommand> = {
  run: async ({ options: o }, { io }) => {
    const { runJulesBench } = await import('../../bench/jules-bench.js');
    const report = await runJulesBench({
      cliPath: bundled('maker.js', 'CLI'),
      leaves: o.leaves ?? 3,
      candidates: o.candidates ?? 5,
      workMs: o.workMs ?? 100,
      concurrency: o.concurrency ?? 15,
      poll: { initial: o.pollMs ?? 40, factor: o.pollFactor ?? 1.5, max: o.pollMax ?? 1000 },
      repeats: o.repeats ?? 5,
      warmup: o.warmup ?? 0,
    });
    io.stdout(
      o.json === true
        ? `${JSON.stringify(report)}\n`
        : `Jules: ${report.leaves} leaves x ${report.candidates} candidates = ${report.sessions} sessions of ${report.workMs} ms, cap ${report.concurrency}, first poll ${report.poll.initial} ms x${report.poll.factor}\n  wall ${report.wallMs.median} ms (median of ${report.repeats}; ${report.wallMs.min}-${report.wallMs.max}) vs ideal ${report.idealMs} ms: ratio ${report.ratio}${report.warmup.trials === 0 ? '' : ` after ${report.warmup.trials} warm-up trials (${report.warmup.wallMs.join(', ')} ms)`}\n  branches published in ${report.publishMs} ms beforehand (with them: ratio ${report.coldRatio})\n  ${report.requestsPerSession} requests per session: ${Object.entries(
            report.requestsByKind,
          )
            .map(([kind, n]) => `${kind} x${n}`)
            .join(', ')}\n`,
    );
    return report.candidatesValid ? 0 : 1;
  },
};

export const benchMcpStartCommand = defineCommand({
  name: 'mcp-start',
  summary: 'cold starts of the bundled MCP server',
  description: `Cold starts of the bundled MCP server (dist/maker-mcp.js next to this file),
from spawning node to the answer of tools/list, N times, each after a "node -e 0"
(spawn to exit): the medians and their ratio.`,
  options: {
    runs: option('--runs <n>', 'cold starts (default 10)', wholeNumber({ min: 1, max: 200 })),
    json,
  },
  exits: measured,
});

/** Carries `maker bench mcp-start` out. */
export const benchMcpStartRun: RunOf<typeof benchMcpStartCommand> = {
  run: async ({ options: o }, { io }) => {
    const { runMcpStartBench } = await import('../../bench/mcp-start-bench.js');
    const report = await runMcpStartBench({
      serverPath: bundled('maker-mcp.js', 'server'),
      runs: o.runs ?? 10,
    });
    io.stdout(
      o.json === true
        ? `${JSON.stringify(report)}\n`
        : `MCP server cold start to tools/list, ${report.runs} runs: median ${report.medianMs} ms, p90 ${report.p90Ms} ms (min ${report.minMs}, max ${report.maxMs}); node -e 0: median ${report.nodeMedianMs} ms; ratio ${report.ratio}\n`,
    );
    return 0;
  },
};

export const benchLightCommand = defineCommand({
  name: 'light',
  summary: 'CPU time of maker --help and other light commands against node -e 0',
  description: `The CPU time (user + system) of the commands that should start light (--help,
--version, run --help, estimate, bench hanoi --disks 10), each a fresh process of
the bundled CLI (dist/maker.js next to this file), against "node -e 0", in one
loop that takes turns N times: the mean CPU time of each and its ratio to that of
node -e 0. Linux only (each process's whole CPU time is read from /proc).`,
  options: {
    runs: option('--runs <n>', 'turns of the loop (default 15)', wholeNumber({ min: 1, max: 500 })),
    json,
  },
  exits: measured,
});

/** Carries `maker bench light` out. */
export const benchLightRun: RunOf<typeof benchLightCommand> = {
  run: async ({ options: o }, { io }) => {
    const { runLightBench } = await import('../../bench/light-bench.js');
    const report = await runLightBench({ cliPath: bundled('maker.js', 'CLI'), runs: o.runs ?? 15 });
    io.stdout(
      o.json === true
        ? `${JSON.stringify(report)}\n`
        : [
            `CPU time (user + system), mean of ${report.runs} alternated runs; node -e 0: ${report.nodeCpuMs} ms`,
            ...report.commands.map(
              (c) => `  ${c.command.padEnd(48)} ${String(c.cpuMs).padStart(7)} ms  ${c.ratio}x`,
            ),
            '',
          ].join('\n'),
    );
    return 0;
  },
};

export const benchGroup: GroupSpec = {
  name: 'bench',
  summary:
    'measured benchmarks: hanoi (the paper), product, tree, jules, github, mcp-start, light, view',
  description: 'Measured benchmarks. Each prints a report, or one JSON object with --json.',
};
