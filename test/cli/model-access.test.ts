import { execFileSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdir, readFile, readdir, stat, symlink, utimes, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { DEFAULT_MODEL_WAITS } from '../../src/core/deadlines.js';
import { stateFileSchema } from '../../src/core/tree/schema.js';
import { CALIBRATION_SUITE } from '../../src/engine/calibration/suite.js';
import { startFakeGemini, type FakeGemini } from '../../src/offline/fake-gemini.js';
import { maker } from '../helpers/cli.js';
import { projectModel } from '../helpers/project-model.js';
import { stubGemini } from '../helpers/stub-gemini.js';
import { useTempDirs } from '../helpers/tmp.js';
import { promptRole } from '../helpers/prompts.js';
import { machineSandbox } from '../helpers/settings.js';

const tempDir = useTempDirs();
let fake: FakeGemini | undefined;
afterEach(async () => {
  await fake?.close();
  fake = undefined;
});

/**
 * A PATH with git and nothing else: whatever this machine has installed (a real `gemini` among
 * it) cannot change which model access a run chooses.
 */
async function gitOnlyPath(): Promise<string> {
  const bin = join(await tempDir(), 'bin');
  await mkdir(bin);
  const git = execFileSync('sh', ['-c', 'command -v git'], { encoding: 'utf8' }).trim();
  await symlink(git, join(bin, 'git'));
  return bin;
}

/** A fake HOME holding Gemini CLI's OAuth file as a canary, with an access time long past. */
async function canaryHome(): Promise<{ home: string; canary: string; control: string }> {
  const home = await tempDir();
  await mkdir(join(home, '.gemini'));
  const canary = join(home, '.gemini', 'oauth_creds.json');
  const control = join(home, '.gemini', 'control.json');
  for (const file of [canary, control]) {
    await writeFile(file, '{"access_token":"ya29.canary-token-never-read"}');
    await utimes(file, new Date('2001-01-01T00:00:00Z'), new Date());
  }
  return { home, canary, control };
}

/** Whether reading a file updates its access time here (relatime does, when atime < mtime). */
async function atimeTracksReads(control: string): Promise<boolean> {
  const before = (await stat(control)).atimeMs;
  await readFile(control);
  return (await stat(control)).atimeMs !== before;
}

describe('model access', () => {
  it('with no key, no Vertex AI and no gemini, the refusal names all three ways forward and creates nothing', async () => {
    const dir = join(await tempDir(), 'repo');
    const { code, stderr } = await maker(['run', 'a todo list CLI', '--dir', dir], {
      PATH: await gitOnlyPath(),
    });
    expect(code).toBe(2);
    expect(stderr).toMatch(
      /GEMINI_API_KEY is not set, Vertex AI is not configured and no `gemini`/,
    );
    expect(stderr).toMatch(/export GEMINI_API_KEY=/);
    expect(stderr).toMatch(/GOOGLE_GENAI_USE_VERTEXAI=true with GOOGLE_CLOUD_PROJECT/);
    expect(stderr).toMatch(/run `gemini` once in a terminal and choose Login with Google/);
    expect(existsSync(dir)).toBe(false);
    const worker = await maker(['run', 'a todo list CLI', '--dir', dir, '--worker', 'gemini'], {
      PATH: await gitOnlyPath(),
    });
    expect(worker.code).toBe(2);
    expect(worker.stderr).toMatch(
      /Any one of these works: \(1\) set GEMINI_API_KEY[\s\S]*\(2\) use Vertex AI[\s\S]*\(3\) install Gemini CLI/,
    );
    expect(existsSync(dir)).toBe(false);
  });

  it('a gemini that exits 41 (not signed in) gives the sign-in message and creates nothing', async () => {
    const stub = await stubGemini(await tempDir(), { exit: 41 });
    const dir = join(await tempDir(), 'repo');
    const { code, stderr } = await maker(
      ['run', 'a todo list CLI', '--dir', dir, '--hitl', 'auto'],
      {
        PATH: `${stub.bin}:${await gitOnlyPath()}`,
      },
    );
    expect(code).toBe(2);
    expect(stderr).toMatch(
      /Gemini CLI is not signed in: run `gemini` once in a terminal and choose Login with Google/,
    );
    expect(stderr).toMatch(/Nothing was created or changed/);
    expect(existsSync(dir)).toBe(false);
  });

  it('a gemini that hangs at start-up is refused with the cause and the next step, within 30 s by default (its start-up deadline and MAKER’s own time), creating nothing', async () => {
    const stub = await stubGemini(await tempDir(), { hang: true });
    const dir = join(await tempDir(), 'repo');
    const startupMs = 2000;
    const started = Date.now();
    const { code, stderr } = await maker(
      ['run', 'a todo list CLI', '--dir', dir, '--hitl', 'auto'],
      {
        PATH: `${stub.bin}:${await gitOnlyPath()}`,
        MAKER_GEMINI_START_S: String(startupMs / 1000),
      },
    );
    // What the default adds to MAKER's own time (start, checks, the message) stays within 30 s.
    const own = Date.now() - started - startupMs;
    expect(DEFAULT_MODEL_WAITS.startupMs + own, `MAKER's own time: ${own} ms`).toBeLessThan(30_000);
    expect(code).toBe(2);
    expect(stderr).toMatch(
      /Gemini CLI did not finish signing in within 2 s: its service did not answer[\s\S]*Check that `gemini` answers in a terminal \(MAKER_GEMINI_START_S allows it longer\)[\s\S]*Nothing was created or changed/,
    );
    expect(existsSync(dir)).toBe(false);
  });

  it('--model-access names an access that is not available: refused with how to make it so', async () => {
    const dir = join(await tempDir(), 'repo');
    const { code, stderr } = await maker(
      ['run', 'x', '--dir', dir, '--worker', 'gemini', '--model-access', 'vertex'],
      { PATH: await gitOnlyPath(), GEMINI_API_KEY: 'AIza-not-used-0123456789' },
    );
    expect(code).toBe(2);
    expect(stderr).toMatch(
      /--model-access vertex is not available: GOOGLE_GENAI_USE_VERTEXAI is not true/,
    );
    expect(stderr).not.toContain('AIza-not-used');
    expect(existsSync(dir)).toBe(false);
  });

  it('maker doctor says which access a run would use and why, with no secret', async () => {
    const stub = await stubGemini(await tempDir());
    const PATH = `${stub.bin}:${await gitOnlyPath()}`;
    const cli = await maker(['doctor'], { PATH });
    expect(cli.code).toBe(0);
    expect(cli.stdout).toMatch(/A run would use: gemini-cli/);
    expect(cli.stdout).toContain(`Gemini CLI at ${stub.path}`);
    const keyed = await maker(['doctor', '--json'], {
      PATH,
      GEMINI_API_KEY: 'AIza-secret-0123456789',
    });
    expect((JSON.parse(keyed.stdout) as { modelAccess: unknown }).modelAccess).toMatchObject({
      chosen: 'key',
      forced: null,
    });
    expect(keyed.stdout).toContain('GEMINI_API_KEY is set');
    expect(keyed.stdout).not.toContain('AIza-secret');
    const vertex = await maker(['doctor'], {
      PATH,
      GOOGLE_GENAI_USE_VERTEXAI: 'true',
      GOOGLE_CLOUD_PROJECT: 'my-project',
      GOOGLE_CLOUD_LOCATION: 'us-central1',
    });
    expect(vertex.stdout).toMatch(/A run would use: vertex/);
    // Gemini CLI was checked as a run checks it: its sign-in, never a model request.
    const log = await stub.log();
    expect(log.some((e) => e.in?.params?.['p'] === '/maker-sign-in-check')).toBe(true);
    expect(log.filter((e) => e.in?.method === 'session/prompt')).toEqual([]);
  });

  it('maker doctor checks that Gemini CLI is signed in, and lists the ways forward when nothing works', async () => {
    const stub = await stubGemini(await tempDir(), { exit: 41 });
    const signedOut = await maker(['doctor'], { PATH: `${stub.bin}:${await gitOnlyPath()}` });
    expect(signedOut.code).toBe(0);
    expect(signedOut.stdout).toMatch(/A run that needs Gemini would be refused/);
    expect(signedOut.stdout).toMatch(
      /no +gemini-cli +Gemini CLI is not signed in: run `gemini` once in a terminal/,
    );
    // The kinds that use a model lack it too, though their settings look complete.
    expect(signedOut.stdout).toMatch(
      /no +gemini +lacks:\n +- the model access set up here does not work: see Model access, above\./,
    );
    expect(signedOut.stdout).toMatch(/yes +sim +has what it needs/);
    expect(signedOut.stdout).toMatch(
      /Ways forward \(any one works\):\n {4}- key: set GEMINI_API_KEY[\s\S]*- vertex: use Vertex AI[\s\S]*- gemini-cli: install Gemini CLI/,
    );
    const nothing = await maker(['doctor', '--json'], { PATH: await gitOnlyPath() });
    const facts = (
      JSON.parse(nothing.stdout) as { modelAccess: { waysForward: { access: string }[] } }
    ).modelAccess;
    expect(facts.waysForward.map((w) => w.access)).toEqual(['key', 'vertex', 'gemini-cli']);
  });

  it('maker doctor says which worker kinds have what they need, each refused as its settings schema refuses it, with no secret', async () => {
    // Proves: the workers section is the kinds' own problems (their settings, then a model
    // access), the same a run is refused with, and prints no value of a key.
    const PATH = await gitOnlyPath();
    const keyed = await maker(['doctor', '--json'], {
      PATH,
      GEMINI_API_KEY: 'AIza-secret-doctor-0123456789',
      JULES_API_KEY: 'jules-secret-doctor-0123',
      JULES_POLL_MS: 'soon',
    });
    expect(keyed.code).toBe(0);
    const kinds = (
      JSON.parse(keyed.stdout) as {
        workers: { kinds: { name: string; ready: boolean; problems: string[] }[] };
      }
    ).workers.kinds;
    expect(kinds.map((k) => [k.name, k.ready])).toEqual([
      ['gemini', true],
      ['jules', false],
      ['jules-fake', true],
      ['sim', true],
    ]);
    expect(kinds[1]?.problems).toEqual([expect.stringMatching(/^JULES_POLL_MS must be .*"soon"/)]);
    expect(keyed.stdout).not.toMatch(/secret-doctor/);
    const bare = await maker(['doctor'], { PATH });
    expect(bare.stdout).toMatch(
      /Workers:[\s\S]*no +gemini +lacks:\n +- GEMINI_API_KEY is not set, .*\(the ways forward: Model access, above\)/,
    );
    expect(bare.stdout).toMatch(/no +jules +lacks:\n +- JULES_API_KEY is not set/);
    expect(bare.stdout).toMatch(/yes +sim +has what it needs \(simulated/);
  });

  it('--model-access gemini-cli with a key set and no gemini: says gemini is missing, not that the key is', async () => {
    const dir = join(await tempDir(), 'repo');
    const { code, stderr } = await maker(
      ['run', 'a todo list CLI', '--dir', dir, '--model-access', 'gemini-cli', '--hitl', 'auto'],
      { PATH: await gitOnlyPath(), GEMINI_API_KEY: 'AIza-set-but-not-asked-0123456789' },
    );
    expect(code).toBe(2);
    expect(stderr).toMatch(
      /--model-access gemini-cli is not available: no `gemini` command on the PATH/,
    );
    expect(stderr).not.toMatch(/GEMINI_API_KEY is not set/);
    expect(existsSync(dir)).toBe(false);
  });

  it('a run through Gemini CLI completes, records the access (never the key), and never opens ~/.gemini/oauth_creds.json', async () => {
    fake = await startFakeGemini(projectModel);
    const stub = await stubGemini(await tempDir(), { proxy: true });
    const { home, canary, control } = await canaryHome();
    const key = 'AIza-child-only-key-0123456789';
    const dir = join(await tempDir(), 'repo');
    const result = await maker(
      [
        'run',
        'a CLI that converts CSV to JSON',
        '--dir',
        dir,
        '--worker',
        'gemini',
        '--model-access',
        'gemini-cli',
        '--hitl',
        'auto',
        // Its PATH holds git and the stub alone (no sandbox): this test is about model access.
        '--no-checks',
        '--json',
      ],
      {
        PATH: `${stub.bin}:${await gitOnlyPath()}`,
        HOME: home,
        GEMINI_API_KEY: key,
        GOOGLE_GEMINI_BASE_URL: fake.baseUrl,
      },
    );
    expect(result.stderr).toBe('');
    expect(result.code).toBe(0);
    const state = stateFileSchema.parse(
      JSON.parse(await readFile(join(dir, 'maker-state.json'), 'utf8')),
    );
    const run = Object.values(state.runs)[0];
    expect(run?.status).toBe('done');
    expect(run?.config.modelAccess).toBe('gemini-cli');
    // A sign-in is not billed per token: its requests are counted against the day's, no dollars.
    const summary = JSON.parse(result.stdout) as {
      modelCalls: number;
      estimatedCostUsd: number | null;
      dailyRequests: unknown;
    };
    expect(summary.estimatedCostUsd).toBeNull();
    expect(summary.dailyRequests).toEqual({ requests: summary.modelCalls, limit: 1000 });
    const status = await maker(['status', '--dir', dir], { PATH: await gitOnlyPath(), HOME: home });
    expect(status.stdout).toMatch(
      /\d+ requests of the about 1,000 a day the Google sign-in allows \(not billed per token\)/,
    );
    expect(status.stdout).not.toMatch(/est\. \$/);
    // Every call went through the stub gemini (one ACP child), as plain calls with MAKER's prompt.
    const log = await stub.log();
    expect(
      log.filter((e) => e.start !== undefined && e.start.args.includes('--acp')).length,
    ).toBeGreaterThanOrEqual(1);
    expect(fake.requests.length).toBeGreaterThan(0);
    for (const request of fake.requests) {
      expect(request.tools).toEqual([]);
      expect(request.system).toMatch(/language model inside MAKER/);
    }
    // No file MAKER wrote holds the key.
    for (const name of await readdir(dir)) {
      if (name === '.git') continue;
      const path = join(dir, name);
      if ((await stat(path)).isFile()) expect(await readFile(path, 'utf8')).not.toContain(key);
    }
    // MAKER never opened Gemini CLI's OAuth file: its access time is still the one set long ago
    // (where reading moves access times: the control file, read here, shows whether it does).
    const canaryAtime = (await stat(canary)).atimeMs;
    if (await atimeTracksReads(control))
      expect(canaryAtime).toBe(new Date('2001-01-01T00:00:00Z').getTime());
    else
      process.stderr.write(
        'model-access: this file system keeps no access times; the canary check is unverified here\n',
      );
  }, 120_000);
});

describe.runIf((await machineSandbox()) !== undefined)(
  'maker calibrate and the model access',
  () => {
    it('calibrates through a signed-in Gemini CLI (no key): every sample goes through `gemini`', async () => {
      const task = CALIBRATION_SUITE[0]!;
      fake = await startFakeGemini((request) =>
        promptRole(request) === 'review'
          ? { text: JSON.stringify({ verdict: 'ok', confidence: 0.9, reason: 'fine' }) }
          : {
              text: JSON.stringify({
                files: Object.entries(task.solution).map(([path, content]) => ({ path, content })),
                summary: task.title,
              }),
            },
      );
      const stub = await stubGemini(await tempDir(), { proxy: true });
      const out = await maker(
        ['calibrate', '--tasks', '1', '--samples', '2', '--dir', await tempDir(), '--json'],
        {
          PATH: `${stub.bin}:${process.env['PATH'] ?? ''}`,
          HOME: await tempDir(),
          GOOGLE_GEMINI_BASE_URL: fake.baseUrl,
        },
      );
      expect(out.code, out.stderr).toBe(0);
      expect((JSON.parse(out.stdout) as { samples: number }).samples).toBe(2);
      const log = await stub.log();
      expect(log.some((e) => e.in?.params?.['p'] === '/maker-sign-in-check')).toBe(true);
      expect(log.filter((e) => e.in?.method === 'session/prompt').length).toBeGreaterThanOrEqual(2);
    }, 120_000);

    it('calibrate with a gemini that is not signed in says so, not that a key is missing', async () => {
      const stub = await stubGemini(await tempDir(), { exit: 41 });
      const out = await maker(
        ['calibrate', '--tasks', '1', '--samples', '1', '--dir', await tempDir()],
        {
          PATH: `${stub.bin}:${process.env['PATH'] ?? ''}`,
          HOME: await tempDir(),
        },
      );
      expect(out.code).toBe(2);
      expect(out.stderr).toMatch(/Gemini CLI is not signed in: run `gemini` once in a terminal/);
      expect(out.stderr).not.toMatch(/GEMINI_API_KEY is not set/);
    }, 60_000);
  },
);
