import { execFile } from 'node:child_process';
import { mkdir, writeFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { Octokit } from 'octokit';
import { afterEach, expect } from 'vitest';
import { gitAuthEnv } from '../../src/adapters/git/git-auth.js';
import {
  startFakeGitHub,
  type FakeGitHub,
  type FakeGitHubOptions,
} from '../../src/offline/fake-github.js';

/** Tokens of the shape GitHub issues (so redaction patterns apply), one per capability. */
export const TOKENS = {
  full: `ghp_${'F'.repeat(36)}`,
  noAdmin: `github_pat_${'N'.repeat(40)}`,
  readOnly: `github_pat_${'R'.repeat(40)}`,
  classicNoRepo: `ghp_${'C'.repeat(36)}`,
  other: `ghp_${'O'.repeat(36)}`,
} as const;

export const DEFAULT_FAKE_OPTIONS: FakeGitHubOptions = {
  tokens: [
    { token: TOKENS.full, login: 'alice' },
    { token: TOKENS.noAdmin, login: 'alice', permissions: { administration: 'read' } },
    {
      token: TOKENS.readOnly,
      login: 'alice',
      permissions: { contents: 'read', pull_requests: 'read', administration: 'read' },
    },
    {
      token: TOKENS.classicNoRepo,
      login: 'alice',
      kind: 'classic',
      permissions: { contents: 'read', pull_requests: 'read', administration: 'none' },
    },
    { token: TOKENS.other, login: 'mallory' },
  ],
  organizations: [{ login: 'acme', members: ['alice'] }],
};

/** A fake GitHub per test, closed after it. */
export function useFakeGitHub(): (options?: Partial<FakeGitHubOptions>) => Promise<FakeGitHub> {
  const started: FakeGitHub[] = [];
  afterEach(async () => {
    await Promise.all(started.splice(0).map((f) => f.close()));
  });
  return async (options = {}) => {
    const fake = await startFakeGitHub({ ...DEFAULT_FAKE_OPTIONS, ...options });
    started.push(fake);
    return fake;
  };
}

/** octokit as tests use it: no throttling, no retries (each test decides). */
export function testOctokit(fake: FakeGitHub, token: string | undefined = TOKENS.full): Octokit {
  return new Octokit({
    ...(token === undefined ? {} : { auth: token }),
    baseUrl: fake.baseUrl,
    throttle: { enabled: false },
    retry: { enabled: false },
    log: { debug: () => {}, info: () => {}, warn: () => {}, error: () => {} },
  });
}

export interface GitResult {
  readonly code: number;
  readonly stdout: string;
  readonly stderr: string;
}

/** Real git; with `token`, authenticated the way the adapter does it (environment only). */
export function git(
  cwd: string,
  args: readonly string[],
  options: { token?: string; url?: string } = {},
): Promise<GitResult> {
  const auth =
    options.token === undefined || options.url === undefined
      ? { GIT_TERMINAL_PROMPT: '0', GIT_ASKPASS: '' }
      : gitAuthEnv(options.url, options.token, {});
  return new Promise((resolve) => {
    execFile(
      'git',
      [...args],
      {
        cwd,
        env: {
          ...process.env,
          GIT_AUTHOR_NAME: 'Test',
          GIT_AUTHOR_EMAIL: 'test@example.com',
          GIT_COMMITTER_NAME: 'Test',
          GIT_COMMITTER_EMAIL: 'test@example.com',
          ...auth,
        },
      },
      (error, stdout, stderr) =>
        resolve({
          code: error === null ? 0 : typeof error.code === 'number' ? error.code : -1,
          stdout,
          stderr,
        }),
    );
  });
}

/**
 * Someone else's commit on `main` of `alice/<repo>` on the fake: cloned to `clone`, `path` (a file
 * the run wrote, so the run's change now conflicts with main) rewritten, committed and pushed.
 */
export async function pushSomeoneElses(
  fake: FakeGitHub,
  repo: string,
  clone: string,
  path: string,
): Promise<void> {
  const url = `${fake.baseUrl}/alice/${repo}.git`;
  expect((await git('/', ['clone', '-q', url, clone], { token: TOKENS.full, url })).code).toBe(0);
  await mkdir(dirname(join(clone, path)), { recursive: true });
  await writeFile(join(clone, path), 'someone else wrote this\n');
  expect((await git(clone, ['add', '-A'])).code).toBe(0);
  expect((await git(clone, ['commit', '-qm', 'theirs'])).code).toBe(0);
  expect(
    (await git(clone, ['push', '-q', 'origin', 'main'], { token: TOKENS.full, url })).code,
  ).toBe(0);
}
