import { execFileSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { FLAWLESS, SimPlanner, SimWorker } from '../../src/adapters/sim/project-sim.js';
import { makerStateFile } from '../../src/adapters/state/state-file.js';
import { MakerError } from '../../src/core/errors.js';
import { MakerEngine } from '../../src/engine/maker-engine.js';
import type { Worker, WorkerOutput } from '../../src/ports/worker.js';
import { openWorkspace } from '../../src/app/wiring/wiring.js';
import { baseConfig } from '../helpers/engine.js';
import { useTempDirs } from '../helpers/tmp.js';
import { workspaceSettings } from '../helpers/settings.js';

/**
 * A failed run's scratch object store, where its red-flagged candidates' objects are (a key among
 * them), is swept when the next run starts; the stores of runs that may still go on stay, and the
 * failed run, resumed later, draws its unfinished votes again. Real git, sim runs.
 */
const tempDir = useTempDirs();
const RUN_KEY = 'sk-run-own-key-5f1e'; // the run's configured key: a candidate writing it is flagged

/** Every object of a scratch store, as text (`git cat-file --batch-all-objects` on it alone). */
function storeObjects(dir: string, run: string): string {
  return execFileSync('git', ['cat-file', '--batch-all-objects', '--batch'], {
    cwd: dir,
    encoding: 'utf8',
    env: {
      ...process.env,
      GIT_OBJECT_DIRECTORY: join(dir, '.git', 'maker-scratch', run, 'objects'),
    },
    maxBuffer: 1 << 26,
  });
}

/** The sim worker; `mode.now` says what the next sample does. */
function scriptedWorker(mode: { now: 'leak-then-fail' | 'fine' | 'spaced' }): Worker {
  const inner = new SimWorker({ seed: 7, depth: 1, ...FLAWLESS });
  let calls = 0;
  return {
    id: 'sim',
    run: async (task, slot): Promise<WorkerOutput> => {
      calls += 1;
      const out = await inner.run(task, slot);
      if (mode.now === 'fine' || !out.ok || out.edits === undefined) return out;
      // Another tree for the same vote key (trailing white space): a winner must be its own tree.
      if (mode.now === 'spaced')
        return {
          ...out,
          edits: out.edits.map((e) => ({
            ...e,
            content: e.content?.replace(/\n/g, ' \n') ?? null,
          })),
        };
      // The first sample writes the key (red-flagged); three are fine; then the service breaks.
      if (calls === 1)
        return {
          ...out,
          edits: out.edits.map((e, i) =>
            i === 0 ? { ...e, content: `${e.content ?? ''}\nkey = "${RUN_KEY}"\n` } : e,
          ),
        };
      if (calls > 4)
        throw new MakerError('unavailable', 'The service broke.', { isRetryable: true });
      return out;
    },
  };
}

describe("a failed run's scratch store", () => {
  it('is swept when the next run starts; a cancelled run keeps its own; the failed run resumes', async () => {
    const dir = await tempDir();
    const workspace = await openWorkspace(dir, true, workspaceSettings());
    const mode: { now: 'leak-then-fail' | 'fine' | 'spaced' } = { now: 'leak-then-fail' };
    const engine = new MakerEngine({
      workspace,
      roles: {
        planner: new SimPlanner({ seed: 7, depth: 1, ...FLAWLESS }),
        worker: scriptedWorker(mode),
      },
      store: makerStateFile(dir),
      secrets: [RUN_KEY],
    });
    const config = { ...baseConfig, maxDepth: 1, concurrency: 1 };
    const failed = await engine.create('a small idea', config);
    const outcome = await engine.run(failed);
    expect(outcome.status).toBe('failed');
    const run = structuredClone(await engine.getRun(failed));
    const flagged = Object.values(run.nodes).flatMap((n) =>
      (n.leaf?.draws ?? []).filter((d) => d.flags.some((f) => f.rule === 'secret')),
    );
    expect(flagged).toHaveLength(1);
    // What the flagged candidate wrote is on disk, in the failed run's store.
    expect(storeObjects(dir, failed)).toContain(RUN_KEY);
    const unfinished = Object.values(run.nodes).filter(
      (n) => n.status !== 'done' && (n.leaf?.draws.some((d) => d.status === 'valid') ?? false),
    );
    expect(unfinished.length).toBeGreaterThan(0);

    // A run cancelled before it drew anything: it may go on, so its store stays.
    mode.now = 'fine';
    const cancelled = await engine.create('a cancelled idea', config);
    expect((await engine.run(cancelled, { signal: AbortSignal.abort() })).status).toBe('cancelled');
    expect(existsSync(join(dir, '.git', 'maker-scratch', cancelled))).toBe(true);

    // The next run starts (and is stopped at once: its start is what sweeps).
    const next = await engine.create('another idea', config);
    expect((await engine.run(next, { signal: AbortSignal.abort() })).status).toBe('cancelled');
    // Failed at main: the failed run's store, the key in it, stayed.
    expect(existsSync(join(dir, '.git', 'maker-scratch', failed))).toBe(false);
    expect(existsSync(join(dir, '.git', 'maker-scratch', cancelled))).toBe(true);
    expect(existsSync(join(dir, '.git', 'maker-scratch', next))).toBe(true);

    // Its unfinished votes start over, as saved: their candidates' objects are gone.
    const saved = await new MakerEngine({
      workspace,
      roles: { planner: new SimPlanner({ seed: 7 }), worker: scriptedWorker(mode) },
      store: makerStateFile(dir),
    }).getRun(failed);
    for (const n of unfinished) {
      const leaf = saved.nodes[n.id]?.leaf;
      expect(leaf?.draws).toEqual([]);
      expect(leaf?.attempt).toBe((n.leaf?.attempt ?? 0) + 1);
      expect(leaf?.retired?.samples).toBeGreaterThan(0);
    }
    mode.now = 'spaced';
    const resumed = await engine.run(failed);
    expect(resumed.status, resumed.error).toBe('done');
    await workspace.close();
  });
});
