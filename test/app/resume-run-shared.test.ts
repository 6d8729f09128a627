import { execFileSync } from 'node:child_process';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import type * as ResumeRunModule from '../../src/app/resume-run.js';
import type * as CliMain from '../../src/surfaces/cli/main.js';
import type { CliIo } from '../../src/surfaces/cli/io.js';
import type * as Manager from '../../src/surfaces/mcp/run-manager.js';
import { maker } from '../helpers/cli.js';
import { useTempDirs } from '../helpers/tmp.js';

/** Every resume check that went through the shared use case: the surface and the run. */
const checked = vi.hoisted(() => [] as { surface: string; runId: string }[]);

// The real check, watched: each surface's resume must pass through it.
vi.mock('../../src/app/resume-run.js', async (importOriginal) => {
  const real = await importOriginal<typeof ResumeRunModule>();
  const checkResume: typeof real.checkResume = async (run, dir, env, surface) => {
    checked.push({ surface, runId: run.id });
    return real.checkResume(run, dir, env, surface);
  };
  return { ...real, checkResume };
});

// Files share their worker's process (isolate: false): the surfaces are loaded afresh, after the
// watch is in place.
let main: typeof CliMain.main;
let RunManager: typeof Manager.RunManager;
beforeAll(async () => {
  vi.resetModules();
  ({ main } = await import('../../src/surfaces/cli/main.js'));
  ({ RunManager } = await import('../../src/surfaces/mcp/run-manager.js'));
});
afterEach(() => void checked.splice(0));

const tempDir = useTempDirs();

function cliIo(dir: string, err: string[] = []): CliIo {
  return {
    stdout: () => undefined,
    stderr: (t) => void err.push(t),
    stderrIsTty: false,
    stdinIsTty: false,
    cwd: dir,
    env: {},
  };
}

/** A run waiting for answers (`--hitl defer`), in a repository whose HEAD is then detached. */
async function waitingRunOnDetachedHead(): Promise<{ dir: string; runId: string }> {
  const dir = await tempDir();
  const flags = ['--worker', 'sim', '--hitl', 'defer', '--no-checks', '--max-depth', '0'];
  // In its own process: a `maker run` holds its workspace's lock until its process exits.
  expect((await maker(['run', 'a note', '--dir', dir, ...flags])).code).toBe(4);
  const state = JSON.parse(await readFile(join(dir, 'maker-state.json'), 'utf8')) as {
    runs: Record<string, unknown>;
  };
  const [runId] = Object.keys(state.runs);
  execFileSync('git', ['checkout', '-q', '--detach'], { cwd: dir });
  return { dir, runId: runId! };
}

describe('one resume check for both surfaces', () => {
  it('maker resume and maker_resume refuse a detached HEAD with the same words, through checkResume', async () => {
    // Proves: both surfaces check a resume in one place (a detached HEAD was checked by the CLI
    // only), and say the same thing; the run is not changed by either refusal.
    const { dir, runId } = await waitingRunOnDetachedHead();
    const before = await readFile(join(dir, 'maker-state.json'), 'utf8');
    const err: string[] = [];
    expect(await main(['resume', '--dir', dir, '--hitl', 'auto'], cliIo(dir, err))).not.toBe(0);
    const cliMessage = err.join('');
    expect(cliMessage).toMatch(/has a detached HEAD: check out main\./);
    const runs = new RunManager({ workspaceDir: dir, env: {} });
    let mcpMessage = '';
    try {
      await runs.resume(runId).catch((error: unknown) => (mcpMessage = String(error)));
    } finally {
      await runs.close();
    }
    expect(mcpMessage).toMatch(/has a detached HEAD: check out main\./);
    const words = (text: string) => /A run with[^]*The run was not changed\./.exec(text)?.[0];
    expect(words(mcpMessage)).toBe(words(cliMessage));
    expect(checked).toEqual([
      { surface: 'cli', runId },
      { surface: 'mcp', runId },
    ]);
    expect(await readFile(join(dir, 'maker-state.json'), 'utf8')).toBe(before);
  });
});
