import { chmod, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { gitHubApiUrl } from '../../src/adapters/github/octokit.js';
import { resolveGitHubToken } from '../../src/adapters/github/token.js';
import { ConfigError } from '../../src/core/errors.js';
import { useTempDirs } from '../helpers/tmp.js';

const tempDir = useTempDirs();
const GH_TOKEN = `gho_${'G'.repeat(36)}`;

/** A directory holding a fake `gh` that prints a token (and records its arguments), or fails. */
async function fakeGh(script: string): Promise<{ dir: string; argsFile: string }> {
  const dir = await tempDir();
  const argsFile = join(dir, 'args');
  await writeFile(join(dir, 'gh'), `#!/bin/sh\necho "$@" > '${argsFile}'\n${script}\n`);
  await chmod(join(dir, 'gh'), 0o755);
  return { dir, argsFile };
}

describe('resolveGitHubToken', () => {
  it('takes GITHUB_TOKEN first, without running gh', async () => {
    let ran = false;
    const token = await resolveGitHubToken({
      given: ' ghp_from_env_0000000000000000000000000 \n',
      env: {},
      run: () => ((ran = true), Promise.resolve(undefined)),
    });
    expect(token).toEqual({
      token: 'ghp_from_env_0000000000000000000000000',
      source: 'GITHUB_TOKEN',
    });
    expect(ran).toBe(false);
  });

  it('falls back to `gh auth token` from the gh on PATH', async () => {
    const gh = await fakeGh(`echo ${GH_TOKEN}`);
    const token = await resolveGitHubToken({ given: '', env: { PATH: `${gh.dir}:/usr/bin:/bin` } });
    expect(token).toEqual({ token: GH_TOKEN, source: 'gh auth token' });
    const { readFile } = await import('node:fs/promises');
    expect((await readFile(gh.argsFile, 'utf8')).trim()).toBe('auth token');
  });

  it('asks gh for the token of a GitHub Enterprise host', async () => {
    const gh = await fakeGh(`echo ${GH_TOKEN}`);
    await resolveGitHubToken({
      given: '',
      env: { PATH: `${gh.dir}:/usr/bin:/bin` },
      baseUrl: 'https://ghe.example.com/api/v3',
    });
    const { readFile } = await import('node:fs/promises');
    expect((await readFile(gh.argsFile, 'utf8')).trim()).toBe(
      'auth token --hostname ghe.example.com',
    );
  });

  it.each([
    ['gh is not installed', undefined, /the GitHub CLI \(gh\) is not installed/],
    [
      'gh is not logged in',
      'echo "no oauth token found for github.com" >&2; exit 1',
      /`gh auth token` gave none \(no oauth token found/,
    ],
  ])('says what to do when there is no token and %s', async (_name, script, reason) => {
    const dir = script === undefined ? await tempDir() : (await fakeGh(script)).dir;
    const error = await resolveGitHubToken({ given: '', env: { PATH: dir } }).catch(
      (e: unknown) => e,
    );
    expect(error).toBeInstanceOf(ConfigError);
    expect((error as Error).message).toMatch(reason);
    expect((error as Error).message).toMatch(/Set GITHUB_TOKEN .* or run `gh auth login`/);
  });
});

describe('gitHubApiUrl', () => {
  it.each([
    ['', 'https://api.github.com'],
    ['  ', 'https://api.github.com'],
    ['https://ghe.example.com/api/v3/', 'https://ghe.example.com/api/v3'],
    ['http://127.0.0.1:4321', 'http://127.0.0.1:4321'],
    ['http://localhost:4321/', 'http://localhost:4321'],
  ])('GITHUB_API_URL=%s is %s', (raw, url) => {
    expect(gitHubApiUrl(raw)).toBe(url);
  });

  it.each([
    ['not a url', /is not a URL/],
    ['http://api.example.com', /must be https/],
    ['https://user:pass@api.example.com', /must not carry credentials/],
  ])('refuses GITHUB_API_URL=%s', (raw, message) => {
    expect(() => gitHubApiUrl(raw)).toThrow(message);
  });
});
