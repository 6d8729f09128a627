import { execFileSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { readdir, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { SimPlanner, SimWorker, FLAWLESS } from '../../src/adapters/sim/project-sim.js';
import { AbortedError } from '../../src/core/errors.js';
import { makerStateFile } from '../../src/adapters/state/state-file.js';
import { MakerEngine } from '../../src/engine/maker-engine.js';
import type { Worker, WorkerOutput } from '../../src/ports/worker.js';
import { openWorkspace } from '../../src/app/wiring/wiring.js';
import { baseConfig } from '../helpers/engine.js';
import { useTempDirs } from '../helpers/tmp.js';
import { workspaceSettings } from '../helpers/settings.js';

/**
 * What red-flagged and losing candidates leave in the repository: nothing. A run's candidates are
 * written into a scratch object store of its own; only what it commits is moved into the
 * repository's objects, and the store goes when the run ends. Real git, a sim run whose first
 * samples are hostile (table-driven), then the repository's objects are searched.
 */
const tempDir = useTempDirs();
const RUN_KEY = 'sk-run-own-key-7'; // the run's configured key: no known format
const git = (dir: string, ...args: string[]) =>
  execFileSync('git', args, { cwd: dir, encoding: 'utf8', maxBuffer: 1 << 28 });

/** 3 MB that does not compress (base64 of random bytes): over the 1 MB limit. */
const big = () => randomBytes(2_300_000).toString('base64');
const addedFile = (path: string, content: string) =>
  `diff --git a/${path} b/${path}\nnew file mode 100644\n--- /dev/null\n+++ b/${path}\n@@ -0,0 +1 @@\n+${content}\n`;

type Edits = { path: string; content: string | null }[];
const CASES: [string, (edits: Edits) => WorkerOutput, 'key' | 'size'][] = [
  [
    "whole files holding the run's own key",
    (edits) => ({
      ok: true,
      edits: edits.map((e, i) =>
        i === 0 ? { ...e, content: `${e.content ?? ''}\nconst key = "${RUN_KEY}";\n` } : e,
      ),
    }),
    'key',
  ],
  [
    "a patch holding the run's own key",
    (edits) => ({ ok: true, patch: addedFile(sibling(edits, 'leak.ts'), `k = "${RUN_KEY}"`) }),
    'key',
  ],
  [
    'whole files over the size limit',
    (edits) => ({
      ok: true,
      edits: [...edits, { path: sibling(edits, 'big.txt'), content: big() }],
    }),
    'size',
  ],
  [
    'a patch over the size limit',
    (edits) => ({ ok: true, patch: addedFile(sibling(edits, 'big.txt'), big()) }),
    'size',
  ],
];

/** A path beside the first file a sample writes (in its subtask's scope). */
function sibling(edits: Edits, name: string): string {
  const first = edits[0]?.path ?? 'x';
  return first.includes('/') ? `${first.slice(0, first.lastIndexOf('/'))}/${name}` : name;
}

/** The sim worker, whose first `count` samples are turned hostile by `spoil`. */
function hostile(
  count: number,
  spoil: (edits: Edits) => WorkerOutput,
): Worker & { spoiled: number } {
  const inner = new SimWorker({ seed: 7, depth: 1, ...FLAWLESS });
  const worker = {
    id: 'sim',
    spoiled: 0,
    run: async (...[task, slot]: Parameters<Worker['run']>): Promise<WorkerOutput> => {
      const out = await inner.run(task, slot);
      if (worker.spoiled >= count || !out.ok || out.edits === undefined) return out;
      worker.spoiled += 1;
      return spoil([...out.edits]);
    },
  };
  return worker;
}

async function sizeOf(path: string): Promise<number> {
  const info = await stat(path);
  if (!info.isDirectory()) return info.size;
  let total = 0;
  for (const name of await readdir(path)) total += await sizeOf(join(path, name));
  return total;
}

async function runWith(worker: Worker) {
  const dir = await tempDir();
  const workspace = await openWorkspace(dir, true, workspaceSettings());
  const before = await sizeOf(join(dir, '.git'));
  const engine = new MakerEngine({
    workspace,
    roles: { planner: new SimPlanner({ seed: 7, depth: 1, ...FLAWLESS }), worker },
    store: makerStateFile(dir),
    secrets: [RUN_KEY],
  });
  const runId = await engine.create('a small idea', {
    ...baseConfig,
    maxDepth: 1,
    maxCandidates: 24,
    maxFlagRate: 0.95,
  });
  const outcome = await engine.run(runId);
  await workspace.close();
  return { dir, engine, runId, outcome, before };
}

describe("a run's candidates and the repository's objects", () => {
  it.each(CASES)(
    'keeps eight red-flagged samples (%s) out of the repository',
    async (_name, spoil, kind) => {
      const worker = hostile(8, spoil);
      const { dir, engine, runId, outcome, before } = await runWith(worker);
      expect(outcome.status).toBe('done');
      expect(worker.spoiled).toBe(8);
      const run = await engine.getRun(runId);
      const flagged = Object.values(run.nodes).flatMap((n) =>
        (n.leaf?.draws ?? []).filter((d) => d.status === 'flagged'),
      );
      expect(flagged.length).toBeGreaterThanOrEqual(8);
      // Every object of the repository, loose and packed.
      const objects = git(dir, 'cat-file', '--batch-all-objects', '--batch');
      if (kind === 'key') expect(objects).not.toContain(RUN_KEY);
      // Failed at main: 8 × 3 MB of blobs (about 19 MB once compressed) were written into .git.
      if (kind === 'size')
        expect((await sizeOf(join(dir, '.git'))) - before).toBeLessThan(1_500_000);
      // The store went with the run; what was committed is whole.
      await expect(stat(join(dir, '.git', 'maker-scratch'))).rejects.toThrow();
      git(dir, 'fsck', '--connectivity-only', '--no-progress');
      const tree = git(dir, 'ls-tree', '-r', 'main');
      expect(tree).toMatch(/\S/);
    },
  );

  it('resumes a run stopped mid-vote from the candidates its store kept', async () => {
    const dir = await tempDir();
    const state = makerStateFile(dir);
    const first = await openWorkspace(dir, true, workspaceSettings());
    const inner = new SimWorker({ seed: 7, depth: 1, ...FLAWLESS });
    const stop = new AbortController();
    // Each vote's first sample comes back; the others wait until the run is stopped (once a vote
    // holds a valid sample), so it stops mid-vote.
    const stalling: Worker = {
      id: 'sim',
      limitsItself: true, // a waiting sample holds none of the run's paid slots
      run: async (task, slot, signal) => {
        if (slot % 1000 !== 0)
          await new Promise((resolve) => {
            if (signal?.aborted === true) resolve(undefined);
            signal?.addEventListener('abort', resolve, { once: true });
          });
        if (signal?.aborted === true) throw new AbortedError('stopped');
        return inner.run(task, slot);
      },
    };
    const planner = new SimPlanner({ seed: 7, depth: 1, ...FLAWLESS });
    const engine = new MakerEngine({
      workspace: first,
      roles: { planner, worker: stalling },
      store: state,
    });
    const runId = await engine.create('a small idea', { ...baseConfig, maxDepth: 1 });
    void (async () => {
      for await (const event of engine.events(stop.signal)) {
        if (event.type === 'sample-drawn' && event.vote === 'patch') return stop.abort();
      }
    })();
    const stopped = await engine.run(runId, { signal: stop.signal });
    expect(stopped.status).toBe('cancelled');
    await first.close();
    const run = await engine.getRun(runId);
    const open = Object.values(run.nodes).filter(
      (n) => n.leaf !== undefined && n.commit === undefined,
    );
    expect(open.flatMap((n) => n.leaf?.draws ?? []).some((d) => d.status === 'valid')).toBe(true);
    // Kept for the resume, and only there: the repository holds no candidate's tree but a winner's.
    expect(await readdir(join(dir, '.git', 'maker-scratch'))).toEqual([runId]);
    for (const n of Object.values(run.nodes)) {
      const kept =
        n.commit === undefined ? undefined : git(dir, 'rev-parse', `${n.commit}^{tree}`).trim();
      for (const d of n.leaf?.draws ?? [])
        if (d.status === 'valid' && (d.tree ?? d.key) !== kept)
          expect(() => git(dir, 'cat-file', '-e', d.tree ?? d.key ?? '')).toThrow();
    }

    // A new process: a fresh workspace and engine over the same state file.
    const second = await openWorkspace(dir, false, workspaceSettings());
    const resumed = new MakerEngine({
      workspace: second,
      roles: { planner, worker: inner },
      store: makerStateFile(dir),
    });
    const outcome = await resumed.run(runId);
    await second.close();
    expect(outcome.status).toBe('done');
    await expect(stat(join(dir, '.git', 'maker-scratch'))).rejects.toThrow();
    git(dir, 'fsck', '--connectivity-only', '--no-progress');
    const after = await resumed.getRun(runId);
    for (const n of Object.values(after.nodes))
      if (n.commit !== undefined) git(dir, 'cat-file', '-e', `${n.commit}^{tree}`);
  });
});
