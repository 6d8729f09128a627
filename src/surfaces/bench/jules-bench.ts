import { execFileSync, spawn } from 'node:child_process';
import { once } from 'node:events';
import { createInterface } from 'node:readline';
import { z } from 'zod';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { BatchRefPublisher } from '../../adapters/git/ref-publisher.js';
import { GitWorkspace } from '../../adapters/git/git-workspace.js';
import { JulesClient } from '../../adapters/jules/client.js';
import { JulesWorker } from '../../adapters/jules/worker.js';
import type { WorkerTask } from '../../ports/worker.js';

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
}

/**
 * `maker bench jules`: the Jules worker's overhead. `leaves × candidates` sessions are sampled at
 * once, as the engine does (2k − 1 per leaf, every leaf in parallel), through the real worker and
 * client, against the fake Jules server whose sessions take `workMs` of simulated work. Each leaf's
 * branch is pushed to a real bare origin first, as the engine does when the node starts (timed
 * apart: `publishMs`, and `coldRatio` with it). The ideal is the work alone, spread over the cap:
 * ceil(sessions / cap) × workMs. Requests per session counts every HTTP request the fake answered.
 */
export async function runJulesBench(options: JulesBenchOptions) {
  const trials = [];
  for (let i = 0; i < options.repeats; i++) trials.push(await trial(options));
  const walls = trials.map((t) => t.wallMs).sort((a, b) => a - b);
  const median = walls[Math.floor(walls.length / 2)] as number;
  const publishes = trials.map((t) => t.publishMs).sort((a, b) => a - b);
  const publishMedian = publishes[Math.floor(publishes.length / 2)] as number;
  const sessions = options.leaves * options.candidates;
  const idealMs = Math.ceil(sessions / options.concurrency) * options.workMs;
  const last = trials.at(-1);
  return {
    leaves: options.leaves,
    candidates: options.candidates,
    sessions,
    workMs: options.workMs,
    concurrency: options.concurrency,
    poll: options.poll,
    repeats: options.repeats,
    idealMs,
    wallMs: { median: round(median), min: round(walls[0] ?? 0), max: round(walls.at(-1) ?? 0) },
    ratio: round(median / idealMs, 3),
    /** Publishing the leaves' branches (one batched push), which the engine overlaps with deciding. */
    publishMs: round(publishMedian),
    /** The ratio if publishing were not overlapped: push, then sampling. */
    coldRatio: round((median + publishMedian) / idealMs, 3),
    requestsPerSession: round(
      trials.reduce((a, t) => a + t.requests, 0) / (trials.length * sessions),
      2,
    ),
    requestsByKind: last?.byKind ?? {},
    candidatesValid: trials.every((t) => t.valid === sessions),
  };
}

async function trial(options: JulesBenchOptions) {
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
    const fake = await startFakeProcess(options, origin, apiKey);
    try {
      const worker = new JulesWorker({
        client: new JulesClient({ apiKey, baseUrl: fake.baseUrl }),
        source: 'sources/github/bench/app',
        publisher: new BatchRefPublisher({ cwd: workspace.dir, remoteUrl: origin }),
        concurrency: options.concurrency,
        pollMs: options.poll,
      });
      // The engine publishes a node's branch when the node starts, during its "is this minimal?"
      // vote: sampling then finds it there. Timed apart.
      const publishing = performance.now();
      await Promise.all(
        Array.from({ length: options.leaves }, (_, leaf) => worker.prepare(task(leaf, base))),
      );
      const publishMs = performance.now() - publishing;
      const started = performance.now();
      const outputs = await Promise.all(
        Array.from({ length: options.leaves }, (_, leaf) =>
          Array.from({ length: options.candidates }, (_, slot) =>
            worker.run(task(leaf, base), slot, undefined, {
              recordExternalId: () => Promise.resolve(),
            }),
          ),
        ).flat(),
      );
      const wallMs = performance.now() - started;
      const requests = await fake.requests();
      const byKind: Record<string, number> = {};
      for (const r of requests) {
        const kind = `${r.method} ${r.path
          .replace(/\/sessions\/\d+/, '/sessions/{id}')
          .replace(/\/sources\/.+/, '/sources/{name}')}`;
        byKind[kind] = (byKind[kind] ?? 0) + 1;
      }
      return {
        wallMs,
        publishMs,
        requests: requests.length,
        byKind,
        valid: outputs.filter((o) => o.ok).length,
      };
    } finally {
      await fake.close();
    }
  } finally {
    await rm(root, { recursive: true, force: true });
  }
}

/** `maker fake-jules` in a child process: its base URL, its request log, and a way to stop it. */
async function startFakeProcess(options: JulesBenchOptions, origin: string, apiKey: string) {
  const child = spawn(
    process.execPath,
    [
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
    ],
    { stdio: ['pipe', 'pipe', 'inherit'] },
  );
  const lines = createInterface({ input: child.stdout });
  const [line] = (await Promise.race([
    once(lines, 'line'),
    once(child, 'exit').then(() => {
      throw new Error('maker fake-jules exited before it was ready.');
    }),
  ])) as [string];
  lines.close();
  const { baseUrl } = z.object({ baseUrl: z.string() }).parse(JSON.parse(line));
  const log = z.object({ requests: z.array(z.object({ method: z.string(), path: z.string() })) });
  return {
    baseUrl,
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

function task(leaf: number, base: string): WorkerTask {
  return {
    context: {
      runId: 'rbench',
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
    branch: `maker/rbench/n-${leaf}`,
  };
}

function round(value: number, digits = 1): number {
  const f = 10 ** digits;
  return Math.round(value * f) / f;
}
