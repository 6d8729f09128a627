import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import type * as StartRunModule from '../../src/app/start-run.js';
import type * as RecordStartModule from '../../src/app/start/record-start.js';
import type * as CliMain from '../../src/surfaces/cli/main.js';
import type { CliIo } from '../../src/surfaces/cli/io.js';
import type * as Manager from '../../src/surfaces/mcp/run-manager.js';

/** Every start that went through the shared use case: its directory and the run it created. */
const started = vi.hoisted(() => [] as { dir: string; runId: string }[]);
/** Every start whose intent the shared first write recorded: its directory. */
const recorded = vi.hoisted(() => [] as string[]);

// The shared first write (lock, then intent), watched likewise.
vi.mock('../../src/app/start/record-start.js', async (importOriginal) => {
  const real = await importOriginal<typeof RecordStartModule>();
  const recordStart: typeof real.recordStart = async (dir, intent, how) => {
    const undo = await real.recordStart(dir, intent, how);
    recorded.push(dir);
    return undo;
  };
  return { ...real, recordStart };
});

// The real use case, watched: each surface's start must pass through it and create its run there.
vi.mock('../../src/app/start-run.js', async (importOriginal) => {
  const real = await importOriginal<typeof StartRunModule>();
  const startRun: typeof real.startRun = async (request, steps) => {
    const run = await real.startRun(request, steps);
    started.push({ dir: request.dir, runId: run.runId });
    return run;
  };
  return { ...real, startRun };
});

// Files share their worker's process (isolate: false): the surfaces are loaded afresh, after the
// watch is in place, not taken from a file that loaded them before.
let main: typeof CliMain.main;
let RunManager: typeof Manager.RunManager;
beforeAll(async () => {
  vi.resetModules();
  ({ main } = await import('../../src/surfaces/cli/main.js'));
  ({ RunManager } = await import('../../src/surfaces/mcp/run-manager.js'));
});

const dirs: string[] = [];
async function tempDir(): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), 'maker-start-shared-'));
  dirs.push(dir);
  return dir;
}
afterEach(async () => {
  started.splice(0);
  recorded.splice(0);
  for (const dir of dirs.splice(0)) await rm(dir, { recursive: true, force: true });
});

describe('one start for both surfaces', () => {
  it('maker run starts its run through startRun, recording its intent through recordStart', async () => {
    const dir = await tempDir();
    const out: string[] = [];
    const io: CliIo = {
      stdout: (t) => void out.push(t),
      stderr: () => undefined,
      stderrIsTty: false,
      stdinIsTty: false,
      cwd: dir,
      env: {},
    };
    const flags = ['--worker', 'sim', '--hitl', 'auto', '--no-checks', '--seed', '11', '--json'];
    const code = await main(['run', 'a note', '--dir', dir, ...flags], io);
    expect(code).toBe(0);
    const { runId } = JSON.parse(out.join('')) as { runId: string };
    expect(started).toEqual([{ dir, runId }]);
    expect(recorded).toEqual([dir]);
  });

  it('maker_start starts its run through the same startRun and recordStart', async () => {
    const dir = await tempDir();
    const runs = new RunManager({ workspaceDir: dir, env: {} });
    try {
      const { runId, dir: runDir } = await runs.start({
        idea: 'a note',
        worker: 'sim',
        runChecks: false,
      });
      expect(started).toEqual([{ dir: runDir, runId }]);
      expect(recorded).toEqual([runDir]);
    } finally {
      await runs.close();
    }
  });
});
