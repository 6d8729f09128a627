import { execFileSync } from 'node:child_process';
import { readFile, readdir } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { startFakeGemini, type FakeGemini } from '../../src/offline/fake-gemini.js';
import { maker } from '../helpers/cli.js';
import { useTempDirs } from '../helpers/tmp.js';

const tempDir = useTempDirs();
let fake: FakeGemini | undefined;
afterEach(async () => {
  await fake?.close();
  fake = undefined;
});

/** Keys of no known format: only the one redactor that knows the configured values can catch them. */
const KEYS = {
  GEMINI_API_KEY: 'gem-key-for-tests-001',
  JULES_API_KEY: 'jules-key-for-tests-002',
  GITHUB_TOKEN: 'gh-token-for-tests-003',
};

describe('one redactor for everything written outward', () => {
  it('keeps every configured key out of state, backup, journal, output and git when a service quotes them', async () => {
    // The model service fails with a message quoting every key (a proxy echoing headers, say).
    fake = await startFakeGemini(() => ({
      status: 400,
      message: `bad request; saw ${Object.values(KEYS).join(', ')}`,
    }));
    const dir = await tempDir();
    const result = await maker(
      ['run', 'a csv tool', '--dir', dir, '--worker', 'gemini', '--hitl', 'auto'],
      { ...KEYS, GOOGLE_GEMINI_BASE_URL: fake.baseUrl },
    );
    expect(result.stdout + result.stderr).toMatch(/bad request; saw \[redacted\]/);
    const written = [result.stdout, result.stderr];
    for (const file of await readdir(dir)) {
      if (file === '.git') continue;
      written.push(await readFile(join(dir, file), 'utf8'));
    }
    written.push(await readFile(join(dir, '.git', 'config'), 'utf8'));
    const state = await readFile(join(dir, 'maker-state.json'), 'utf8');
    expect(state).toMatch(/\[redacted\]/); // the run's error was saved, redacted
    for (const text of written)
      for (const key of Object.values(KEYS)) expect(text).not.toContain(key);
  });

  it('keeps a token embedded in an origin URL out of what a refusal prints', async () => {
    const dir = await tempDir();
    const git = (...args: string[]) => execFileSync('git', args, { cwd: dir });
    git('init', '--quiet', '--initial-branch=main');
    git(
      '-c',
      'user.name=t',
      '-c',
      'user.email=t@t',
      'commit',
      '--quiet',
      '--allow-empty',
      '-m',
      'x',
    );
    const token = 'glpat-Zx9Qw8Er7Ty6Ui5Op4';
    git('remote', 'add', 'origin', `https://oauth2:${token}@gitlab.com/o/r.git`);
    const result = await maker(['run', 'a csv tool', '--dir', dir, '--worker', 'jules'], KEYS);
    expect(result.code).not.toBe(0);
    expect(result.stderr).toMatch(
      /origin remote \(https:\/\/\[redacted\]@gitlab\.com\/o\/r\.git\)/,
    );
    expect(result.stdout + result.stderr).not.toContain(token);
  });
});
