import { execFileSync } from 'node:child_process';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { resumeRun, type ResumeSteps } from '../../src/app/resume-run.js';
import type { RunEngine } from '../../src/app/run-engine.js';
import { readSettings } from '../../src/app/settings.js';
import type { Run, StateFile } from '../../src/core/tree/schema.js';
import { maker } from '../helpers/cli.js';
import { useTempDirs } from '../helpers/tmp.js';

/**
 * The order of `resumeRun`'s steps, which both surfaces rely on: the configuration asked first
 * (a refusal there holds nothing), then every check, then the hold, then the engine; what was held
 * let go when anything after the hold fails; the run read again under the hold and configured.
 */
const tempDir = useTempDirs();

/** A run waiting for answers (`--hitl defer`), as its state file has it. */
async function waitingRun(): Promise<{ dir: string; run: Run }> {
  const dir = await tempDir();
  const flags = ['--worker', 'sim', '--hitl', 'defer', '--no-checks', '--max-depth', '0'];
  expect((await maker(['run', 'a note', '--dir', dir, ...flags])).code).toBe(4);
  const state = JSON.parse(await readFile(join(dir, 'maker-state.json'), 'utf8')) as StateFile;
  const [run] = Object.values(state.runs);
  return { dir, run: run! };
}

/** Steps that record what was asked of them; `engine` as given. */
function recording(engine: (run: Run) => Promise<RunEngine>): {
  calls: string[];
  steps: ResumeSteps<string>;
} {
  const calls: string[] = [];
  return {
    calls,
    steps: {
      config: (run) => (calls.push('config'), { ...run.config, hitl: 'fail' }),
      hold: () => (calls.push('hold'), Promise.resolve('held')),
      engine: async (held, run) => {
        calls.push(`engine(${held})`);
        return { engine: await engine(run) };
      },
      release: (held) => (calls.push(`release(${held})`), Promise.resolve()),
    },
  };
}

describe('resumeRun', () => {
  it('checks before it holds: a refused resume holds nothing', async () => {
    const { dir, run } = await waitingRun();
    execFileSync('git', ['checkout', '-q', '--detach'], { cwd: dir });
    const { calls, steps } = recording(() => Promise.reject(new Error('not reached')));
    const request = { run, dir, settings: readSettings({}), surface: 'cli' as const };
    await expect(resumeRun(request, steps)).rejects.toThrow(/detached HEAD/);
    expect(calls).toEqual(['config']);
  });

  it('lets go of what it held when the engine cannot be had', async () => {
    const { dir, run } = await waitingRun();
    const { calls, steps } = recording(() => Promise.reject(new Error('no engine')));
    const request = { run, dir, settings: readSettings({}), surface: 'mcp' as const };
    await expect(resumeRun(request, steps)).rejects.toThrow('no engine');
    expect(calls).toEqual(['config', 'hold', 'engine(held)', 'release(held)']);
  });

  it('configures the run as read under the hold, not as first found', async () => {
    const { dir, run } = await waitingRun();
    // Another process's change between the look and the hold: kept.
    const underHold: Run = { ...run, idea: 'as saved since', config: { ...run.config } };
    const engine = { getRun: () => Promise.resolve(underHold) } as unknown as RunEngine;
    const { calls, steps } = recording(() => Promise.resolve(engine));
    const request = { run, dir, settings: readSettings({}), surface: 'cli' as const };
    const resumed = await resumeRun(request, steps);
    expect(calls).toEqual(['config', 'hold', 'engine(held)', 'config']);
    expect(resumed.run).toBe(underHold);
    expect(resumed.run.idea).toBe('as saved since');
    expect(resumed.run.config.hitl).toBe('fail');
    expect(resumed.held).toBe('held');
  });
});
