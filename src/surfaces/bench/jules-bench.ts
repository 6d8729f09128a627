import { execFileSync, spawn } from 'node:child_process';
import { once } from 'node:events';
import { createInterface } from 'node:readline';
import { z } from 'zod';
import { readFileSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { BatchRefPublisher } from '../../adapters/git/ref-publisher.js';
import { GitWorkspace } from '../../adapters/git/git-workspace.js';
import { JulesClient } from '../../adapters/jules/client.js';
import { JulesWorker } from '../../adapters/jules/worker.js';
import type { WorkerTask } from '../../ports/worker.js';
import { nodeTransport } from '../../adapters/jules/node-transport.js';
import { timeline, traced, tracing, type RawTrace } from './jules-timeline.js';
import { MakerError } from '../../core/errors.js';

export interface JulesBenchOptions {
  /** The bundled CLI, whose `fake-jules` command serves the fake in its own process (as Jules is remote). */
  readonly cliPath: string;
  readonly leaves: number;
  readonly candidates: number;
  /** Simulated work per session, in ms of real time. */
  readonly workMs: number;
  /** Sessions at once (the worker's cap). */
  readonly concurrency: number;
  /** The poll schedule: first delay, growth per poll, cap (ms). */
  readonly poll: { readonly initial: number; readonly factor: number; readonly max: number };
  readonly repeats: number;
  /** Trials run first and left out of the median (their walls are reported apart). */
  readonly warmup?: number;
}

/**
 * `maker bench jules`: the Jules worker's overhead. `leaves × candidates` sessions are sampled at
 * once, as the engine does (2k − 1 per leaf, every leaf in parallel), through the real worker and
 * client, against the fake Jules server whose sessions take `workMs` of simulated work. Each leaf's
 * branch is pushed to a real bare origin first, as the engine does when the node starts (timed
 * apart: `publishMs`, and `coldRatio` with it). The ideal is the work alone, spread over the cap:
 * ceil(sessions / cap) × workMs. Requests per session counts every HTTP request the fake answered.
 * `warmup` trials run first and are left out of the median (a process's first trials pay the JIT
 * of both processes). One fake server serves every trial (each with its own branches and
 * sessions), as Jules is a long-running service; each trial has its own worker and client.
 */
export async function runJulesBench(options: JulesBenchOptions) {
  const root = await mkdtemp(join(tmpdir(), 'maker-bench-jules-'));
  try {
    const dir = join(root, 'repo');
    const origin = join(root, 'origin.git');
    const workspace = await GitWorkspace.open(dir, { create: true });
    execFileSync('git', ['init', '--quiet', '--initial-branch=main', '--bare', origin]);
    execFileSync('git', ['remote', 'add', 'origin', origin], { cwd: dir });
    execFileSync('git', ['push', '--quiet', 'origin', 'main'], { cwd: dir });
    const base = (await workspace.resolve('main')) as string;
    const apiKey = 'bench-jules-key-0123456789';
    // One server for every trial, as Jules is one long-running service: each trial has its own
    // branches and sessions, and counts the requests answered during it.
    const fake = await startFakeProcess(options, origin, apiKey);
    try {
      const warmup = options.warmup ?? 0;
      const trials = [];
      for (let i = 0; i < warmup + options.repeats; i++)
        trials.push(
          await trial(options, { fake, apiKey, dir: workspace.dir, origin, base, run: i }),
        );
      return report(options, trials.slice(warmup), trials.slice(0, warmup));
    } finally {
      await fake.close();
    }
  } finally {
    await rm(root, { recursive: true, force: true });
  }
}

function report(options: JulesBenchOptions, trials: readonly Trial[], warmups: readonly Trial[]) {
  const median = (pick: (t: Trial) => number) => {
    const sorted = trials.map(pick).sort((a, b) => a - b);
    return sorted[Math.floor(sorted.length / 2)] as number;
  };
  const walls = trials.map((t) => t.wallMs).sort((a, b) => a - b);
  const wall = median((t) => t.wallMs);
  const publish = median((t) => t.publishMs);
  const sessions = options.leaves * options.candidates;
  const idealMs = Math.ceil(sessions / options.concurrency) * options.workMs;
  const middle = trials.find((t) => t.wallMs === wall) ?? trials[0];
  return {
    leaves: options.leaves,
    candidates: options.candidates,
    sessions,
    workMs: options.workMs,
    concurrency: options.concurrency,
    poll: options.poll,
    repeats: options.repeats,
    /** Trials run before the measured ones (a cold JIT in both processes), in order. */
    warmup: { trials: warmups.length, wallMs: warmups.map((t) => round(t.wallMs)) },
    idealMs,
    wallMs: { median: round(wall), min: round(walls[0] ?? 0), max: round(walls.at(-1) ?? 0) },
    ratio: round(wall / idealMs, 3),
    /** Publishing the leaves' branches (one batched push), which the engine overlaps with deciding. */
    publishMs: round(publish),
    /** The ratio if publishing were not overlapped: push, then sampling. */
    coldRatio: round((wall + publish) / idealMs, 3),
    requestsPerSession: round(
      trials.reduce((a, t) => a + t.requests.length, 0) / (trials.length * sessions),
      2,
    ),
    requestsByKind: middle === undefined ? {} : byKind(middle.requests),
    /** The median trial's requests, as the worker saw them (see `timeline`). */
    timeline: middle?.timeline,
    /**
     * CPU time spent while sampling (medians): this process (the worker and its client) and the
     * fake server's (undefined where /proc cannot say). Both share this machine's cores.
     */
    cpuMs: {
      worker: round(median((t) => t.cpuMs.worker)),
      server: trials.some((t) => t.cpuMs.server === undefined)
        ? undefined
        : round(median((t) => t.cpuMs.server ?? 0)),
    },
    candidatesValid: trials.every((t) => t.valid === sessions),
  };
}

interface Trial {
  readonly wallMs: number;
  /** CPU time used while sampling: this process (worker, client, bench) and the fake's. */
  readonly cpuMs: { readonly worker: number; readonly server: number | undefined };
  readonly publishMs: number;
  readonly requests: readonly { readonly method: string; readonly path: string }[];
  readonly timeline: ReturnType<typeof timeline>;
  readonly valid: number;
}

async function trial(
  options: JulesBenchOptions,
  at: {
    fake: FakeProcess;
    apiKey: string;
    dir: string;
    origin: string;
    base: string;
    run: number;
  },
): Promise<Trial> {
  const log: RawTrace[] = [];
  const worker = new JulesWorker({
    client: new JulesClient({
      apiKey: at.apiKey,
      baseUrl: at.fake.baseUrl,
      transport: tracing(nodeTransport(), log),
    }),
    source: 'sources/github/bench/app',
    publisher: new BatchRefPublisher({ cwd: at.dir, remoteUrl: at.origin }),
    concurrency: options.concurrency,
    pollMs: options.poll,
  });
  const runId = `rbench${at.run}`;
  const before = (await at.fake.requests()).length;
  // The engine publishes a node's branch when the node starts, during its "is this minimal?"
  // vote: sampling then finds it there. Timed apart.
  const publishing = performance.now();
  await Promise.all(
    Array.from({ length: options.leaves }, (_, leaf) => worker.prepare(task(runId, leaf, at.base))),
  );
  const publishMs = performance.now() - publishing;
  const cpu = process.cpuUsage();
  const serverCpu = at.fake.cpuMs();
  const started = performance.now();
  const outputs = await Promise.all(
    Array.from({ length: options.leaves }, (_, leaf) =>
      Array.from({ length: options.candidates }, (_, slot) =>
        worker.run(task(runId, leaf, at.base), slot, undefined, {
          recordExternalId: () => Promise.resolve(),
        }),
      ),
    ).flat(),
  );
  const wallMs = performance.now() - started;
  const used = process.cpuUsage(cpu);
  const serverUsed = at.fake.cpuMs();
  return {
    wallMs,
    cpuMs: {
      worker: (used.user + used.system) / 1000,
      server:
        serverUsed === undefined || serverCpu === undefined ? undefined : serverUsed - serverCpu,
    },
    publishMs,
    requests: (await at.fake.requests()).slice(before),
    timeline: timeline(traced(log.filter((r) => r.sent >= started)), {
      started,
      workMs: options.workMs,
      concurrency: options.concurrency,
    }),
    valid: outputs.filter((o) => o.ok).length,
  };
}

function byKind(requests: readonly { readonly method: string; readonly path: string }[]) {
  const kinds: Record<string, number> = {};
  for (const r of requests) {
    const kind = `${r.method} ${r.path
      .replace(/\/sessions\/\d+/, '/sessions/{id}')
      .replace(/\/sources\/.+/, '/sources/{name}')}`;
    kinds[kind] = (kinds[kind] ?? 0) + 1;
  }
  return kinds;
}

type FakeProcess = Awaited<ReturnType<typeof startFakeProcess>>;

/** `maker fake-jules` in a child process: its base URL, its request log, and a way to stop it. */
async function startFakeProcess(options: JulesBenchOptions, origin: string, apiKey: string) {
  // The bench's own node flags go to the fake too (`node --cpu-prof … bench jules` profiles both).
  const child = spawn(
    process.execPath,
    [
      ...process.execArgv,
      options.cliPath,
      'fake-jules',
      '--source',
      `bench/app=${origin}`,
      '--agent',
      'touch',
      '--work-ms',
      String(options.workMs),
      '--api-key',
      apiKey,
      '--stdin-lifetime',
    ],
    { stdio: ['pipe', 'pipe', 'inherit'] },
  );
  const lines = createInterface({ input: child.stdout });
  const [line] = (await Promise.race([
    once(lines, 'line'),
    once(child, 'exit').then(() => {
      throw new MakerError(
        'bench-failed',
        'maker fake-jules exited before it was ready: its errors are above.',
      );
    }),
  ])) as [string];
  lines.close();
  const { baseUrl } = z.object({ baseUrl: z.string() }).parse(JSON.parse(line));
  const log = z.object({ requests: z.array(z.object({ method: z.string(), path: z.string() })) });
  return {
    baseUrl,
    /** The server process's CPU time so far (ms), from /proc; undefined where there is none. */
    cpuMs: () => processCpuMs(child.pid),
    requests: async () =>
      log.parse(await (await fetch(baseUrl.replace(/\/v1alpha$/, '/_fake/requests'))).json())
        .requests,
    close: async () => {
      const exited = once(child, 'exit');
      child.stdin.end();
      await exited;
    },
  };
}

/** User plus system CPU time of process `pid` in ms (Linux /proc), or undefined. */
function processCpuMs(pid: number | undefined): number | undefined {
  if (pid === undefined) return undefined;
  try {
    // Fields after the command name: state is the 3rd field; utime and stime the 14th and 15th.
    const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]?.split(' ') ?? [];
    const ticks = Number(fields[11]) + Number(fields[12]);
    return Number.isFinite(ticks) ? ticks * 10 : undefined;
  } catch {
    return undefined;
  }
}

function task(runId: string, leaf: number, base: string): WorkerTask {
  return {
    context: {
      runId,
      nodeId: String(leaf),
      idea: 'a benchmark',
      depth: 1,
      maxDepth: 1,
      task: {
        title: `Leaf ${leaf}`,
        description: `Write leaf ${leaf}.`,
        acceptance: [],
        files: [],
        dependsOn: [],
      },
      ancestors: ['a benchmark'],
      clarifications: [],
    },
    baseCommit: base,
    branch: `maker/${runId}/n-${leaf}`,
  };
}

function round(value: number, digits = 1): number {
  const f = 10 ** digits;
  return Math.round(value * f) / f;
}
