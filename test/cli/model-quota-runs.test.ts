import { execFileSync } from 'node:child_process';
import { mkdir, readFile, symlink } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { stateFileSchema } from '../../src/core/tree/schema.js';
import { startFakeGemini, type FakeGemini } from '../../src/offline/fake-gemini.js';
import { apiDailyQuota, apiMinuteQuota } from '../../src/offline/quota-replies.js';
import { maker } from '../helpers/cli.js';
import { projectModel } from '../helpers/project-model.js';
import { useTempDirs } from '../helpers/tmp.js';

/**
 * What a run does when the model's quota answers: a per-minute limit is waited out, said, and the
 * run goes on; a daily one stops the run at once (no retry, no waiting out a reset), with when it
 * resets and what to do, and `maker resume` then finishes it. Runs with a key on the fake Gemini.
 */
const tempDir = useTempDirs();
let fake: FakeGemini | undefined;
afterEach(async () => {
  await fake?.close();
  fake = undefined;
});

async function gitOnlyPath(): Promise<string> {
  const bin = join(await tempDir(), 'bin');
  await mkdir(bin);
  const git = execFileSync('sh', ['-c', 'command -v git'], { encoding: 'utf8' }).trim();
  await symlink(git, join(bin, 'git'));
  return bin;
}

const RUN = ['--worker', 'gemini', '--model-access', 'key', '--hitl', 'auto', '--no-checks'];

describe('a run and its model’s quota', () => {
  it('a per-minute 429 is waited out ("rate limited, retrying in 6 s") and the run goes on to the end', async () => {
    let limited = 0;
    fake = await startFakeGemini((request, index) => {
      if (index === 3 && limited === 0) {
        limited += 1;
        return apiMinuteQuota(6);
      }
      return projectModel(request, index);
    });
    const dir = join(await tempDir(), 'repo');
    const result = await maker(['run', 'a CLI that converts CSV to JSON', '--dir', dir, ...RUN], {
      PATH: await gitOnlyPath(),
      GEMINI_API_KEY: 'fake-key-0123456789',
      GOOGLE_GEMINI_BASE_URL: fake.baseUrl,
    });
    expect(result.stderr).toMatch(/rate limited, retrying in 6 s/);
    expect(result.code, result.stderr).toBe(0);
    expect(result.stderr).not.toMatch(/daily quota/);
  }, 120_000);

  it('a daily 429 stops the run at once with its reset and `maker resume`; resumed after it, the run finishes', async () => {
    let spent = true;
    let after = 0;
    fake = await startFakeGemini((request, index) => {
      if (index >= 4 && spent) {
        after += 1;
        return apiDailyQuota(17 * 3600);
      }
      return projectModel(request, index);
    });
    const dir = join(await tempDir(), 'repo');
    const env = {
      PATH: await gitOnlyPath(),
      GEMINI_API_KEY: 'fake-key-0123456789',
      GOOGLE_GEMINI_BASE_URL: fake.baseUrl,
    };
    const started = Date.now();
    const stopped = await maker(
      ['run', 'a CLI that converts CSV to JSON', '--dir', dir, ...RUN],
      env,
    );
    expect(Date.now() - started).toBeLessThan(30_000);
    expect(stopped.code).not.toBe(0);
    expect(`${stopped.stdout}${stopped.stderr}`).toMatch(
      /daily quota is spent[\s\S]*resets in 17 h \(at [\d-]+ [\d:]+ UTC\); run `maker resume` then/,
    );
    // Stopped at once: the calls in flight when it was spent, none after (nothing is retried).
    expect(after).toBeLessThanOrEqual(4);
    const state = stateFileSchema.parse(
      JSON.parse(await readFile(join(dir, 'maker-state.json'), 'utf8')),
    );
    const run = Object.values(state.runs)[0];
    expect(run?.status).toBe('failed');
    expect(run?.error).toMatch(/daily quota is spent/);
    spent = false;
    const resumed = await maker(['resume', '--dir', dir, '--hitl', 'auto', '--json'], env);
    expect(resumed.code, resumed.stderr).toBe(0);
    const again = stateFileSchema.parse(
      JSON.parse(await readFile(join(dir, 'maker-state.json'), 'utf8')),
    );
    expect(Object.values(again.runs)[0]?.status).toBe('done');
  }, 120_000);
});
