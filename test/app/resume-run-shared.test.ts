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

/**
 * Every resume that went through the shared use case: the surface, the run, and the questions
 * policy it was given there (undefined when it was refused).
 */
const checked = vi.hoisted(() => [] as { surface: string; runId: string; hitl?: string }[]);

// The real use case, watched: each surface's resume must pass through it.
vi.mock('../../src/app/resume-run.js', async (importOriginal) => {
  const real = await importOriginal<typeof ResumeRunModule>();
  const resumeRun: typeof real.resumeRun = async (request, steps) => {
    const seen: { surface: string; runId: string; hitl?: string } = {
      surface: request.surface,
      runId: request.run.id,
    };
    checked.push(seen);
    const resumed = await real.resumeRun(request, steps);
    seen.hitl = resumed.run.config.hitl;
    return resumed;
  };
  return { ...real, resumeRun };
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
  it('maker resume and maker_resume refuse a detached HEAD with the same words, through resumeRun', async () => {
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

  it('maker resume and maker_resume drive a run through resumeRun, each with its questions policy', async () => {
    // Proves: both surfaces hold and configure a resumed run in one place, each passing its own
    // step (the terminal's --hitl, MCP's wait for maker_answer), which the run then has.
    const cli = await waitingRunOnDetachedHead();
    execFileSync('git', ['checkout', '-q', 'main'], { cwd: cli.dir });
    const out: string[] = [];
    const io = { ...cliIo(cli.dir), stdout: (t: string) => void out.push(t) };
    expect(await main(['resume', '--dir', cli.dir, '--hitl', 'auto', '--json'], io)).toBe(0);
    expect((JSON.parse(out.join('')) as { status: string }).status).toBe('done');
    const mcp = await waitingRunOnDetachedHead();
    execFileSync('git', ['checkout', '-q', 'main'], { cwd: mcp.dir });
    const runs = new RunManager({ workspaceDir: mcp.dir, env: {} });
    try {
      const resumed = await runs.resume(mcp.runId);
      expect(resumed.config.hitl).toBe('wait');
    } finally {
      await runs.close();
    }
    expect(checked).toEqual([
      { surface: 'cli', runId: cli.runId, hitl: 'auto' },
      { surface: 'mcp', runId: mcp.runId, hitl: 'wait' },
    ]);
  });

  it('two maker_resume calls for one stopped run at once share one resume', async () => {
    // Failed before (a review found it): the second was refused ("A maker_resume … is under way")
    // while the run resumed, so the second of two answers given at once (each resumes the run it
    // answers) reported an error for an answer that was saved.
    const { dir, runId } = await waitingRunOnDetachedHead();
    execFileSync('git', ['checkout', '-q', 'main'], { cwd: dir });
    const runs = new RunManager({ workspaceDir: dir, env: {} });
    try {
      const both = await Promise.all([runs.resume(runId), runs.resume(runId)]);
      expect(both.map((r) => r.id)).toEqual([runId, runId]);
      expect(checked).toEqual([{ surface: 'mcp', runId, hitl: 'wait' }]);
    } finally {
      await runs.close();
    }
  });
});
