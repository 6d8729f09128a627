import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ConfigError } from '../../src/core/errors.js';
import { WORKERS, WORKER_NAMES, workerKind } from '../../src/app/workers/index.js';
import { defineWorkerKind, settingProblems } from '../../src/app/workers/kind.js';
import { maker } from '../helpers/cli.js';
import { useTempDirs } from '../helpers/tmp.js';
import { readSettings } from '../../src/app/settings.js';

const tempDir = useTempDirs();

/** An environment in which every kind's model access is set (a key), so only settings are at issue. */
const KEYED = { GEMINI_API_KEY: `AIza${'K'.repeat(35)}`, JULES_API_KEY: 'jules-key-1234' };

describe('the worker kinds', () => {
  it('are listed by name, each under its own name, with settings named once each', () => {
    expect(WORKER_NAMES).toEqual(['gemini', 'jules', 'jules-fake', 'sim']);
    for (const [name, kind] of Object.entries(WORKERS)) {
      expect(kind.name).toBe(name);
      const names = kind.settings.map((s) => s.env);
      expect(new Set(names).size, name).toBe(names.length);
      for (const s of kind.settings)
        expect(s.purpose.length, `${name} ${s.env}`).toBeGreaterThan(0);
    }
  });

  it.each([
    ['jules', { ...KEYED, JULES_API_KEY: '' }, /^JULES_API_KEY is not set: .*JULES_API_KEY=…/],
    ['jules', { ...KEYED, JULES_POLL_MS: 'soon' }, /^JULES_POLL_MS must be .*got "soon"/],
    ['jules', { ...KEYED, MAKER_JULES_OUTAGE_S: '0' }, /^MAKER_JULES_OUTAGE_S must be .*got "0"/],
    ['jules-fake', { MAKER_JULES_OUTAGE_S: '90000' }, /^MAKER_JULES_OUTAGE_S must be/],
  ] as const)('%s refuses what its settings schema refuses (%o)', (name, env, problem) => {
    const problems = WORKERS[name].problems(readSettings(env));
    expect(problems).toHaveLength(1);
    expect(problems[0]).toMatch(problem);
  });

  it('pass what their settings allow, and the simulations need nothing', () => {
    expect(WORKERS.jules.problems(readSettings({ ...KEYED, JULES_POLL_MS: '1000:5000' }))).toEqual(
      [],
    );
    expect(WORKERS['jules-fake'].problems(readSettings({ MAKER_JULES_OUTAGE_S: '60' }))).toEqual(
      [],
    );
    expect(WORKERS.sim.problems(readSettings({}))).toEqual([]);
  });

  it('a kind defined in one module: its settings are checked before its own needs', () => {
    // What a new kind's module holds; its settings' problems come first, with no code of its own.
    const echo = defineWorkerKind({
      name: 'echo',
      summary: 'an example',
      simulated: true,
      settings: [
        { env: 'ECHO_URL', purpose: 'where it echoes', required: 'export ECHO_URL=…' },
        {
          env: 'ECHO_TRIES',
          purpose: 'tries',
          problem: (v) =>
            /^\d+$/.test(v) ? undefined : `ECHO_TRIES must be a number; got "${v}".`,
        },
      ],
      needs: () => ['the echo server is down'],
      roles: () => Promise.reject(new Error('not built in this test')),
    });
    expect(echo.problems(readSettings({ ECHO_TRIES: 'x' }))).toEqual([
      'ECHO_URL is not set: where it echoes. export ECHO_URL=…',
      'ECHO_TRIES must be a number; got "x".',
      'the echo server is down',
    ]);
    expect(settingProblems(echo.settings, { ECHO_URL: 'u', ECHO_TRIES: '3' })).toEqual([]);
  });

  it('a name this MAKER lacks is refused by name, listing the kinds it has', () => {
    expect(workerKind('sim')).toBe(WORKERS.sim);
    expect(() => workerKind('future-kind')).toThrow(ConfigError);
    expect(() => workerKind('future-kind')).toThrow(
      /worker kind, "future-kind", is not one this MAKER has \("gemini", "jules", "jules-fake" or "sim"\)/,
    );
    // Not a key of every object: a kind is an own entry of the registry.
    expect(() => workerKind('toString')).toThrow(ConfigError);
  });
});

describe('a run whose state names a kind this MAKER lacks', () => {
  it('is shown by maker status, and maker resume refuses it by name, changing nothing', async () => {
    // Proves: the state file's schema lists no kinds (a kind is the application's), yet a run of a
    // kind this MAKER lacks is neither a corrupt state file nor a crash, and nothing is written.
    const dir = await tempDir();
    const flags = ['--worker', 'sim', '--hitl', 'defer', '--no-checks', '--max-depth', '0'];
    expect((await maker(['run', 'a note', '--dir', dir, ...flags])).code).toBe(4);
    const file = join(dir, 'maker-state.json');
    const state = JSON.parse(await readFile(file, 'utf8')) as {
      runs: Record<string, { config: { worker: string } }>;
    };
    const [run] = Object.values(state.runs);
    run!.config.worker = 'future-kind';
    await writeFile(file, JSON.stringify(state, null, 2));
    const before = await readFile(file, 'utf8');

    const status = await maker(['status', '--dir', dir, '--json']);
    expect(status.code, status.stderr).toBe(0);
    expect(status.stdout).toContain('future-kind');

    const resume = await maker(['resume', '--dir', dir, '--hitl', 'auto']);
    expect(resume.code).not.toBe(0);
    expect(resume.stderr).toMatch(/worker kind, "future-kind", is not one this MAKER has/);
    expect(resume.stderr).not.toMatch(/bug in maker|at .*\.js:\d+/);
    expect(await readFile(file, 'utf8')).toBe(before);
  });
});
