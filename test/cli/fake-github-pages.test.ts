import type { ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { afterEach, describe, expect, it } from 'vitest';
import { maker, spawnMaker } from '../helpers/cli.js';
import { TOKENS, useFakeGitHub } from '../helpers/github.js';
import { useTempDirs } from '../helpers/tmp.js';

const tempDir = useTempDirs();
const startFake = useFakeGitHub();
const HTML = { accept: 'text/html,application/xhtml+xml,*/*;q=0.8' };

describe('maker fake-github', () => {
  let child: ChildProcess | undefined;
  afterEach(() => {
    child?.kill('SIGKILL');
    child = undefined;
  });

  it('without MAKER_FAKE_GITHUB_TOKEN prints a token of its own that opens it', async () => {
    const proc = spawnMaker(['fake-github']);
    child = proc.child;
    const [line] = (await once(createInterface({ input: proc.child.stdout }), 'line')) as [string];
    const { baseUrl, token, login } = JSON.parse(line) as Record<string, string>;
    expect(token).not.toMatch(/redacted/);
    const user = await fetch(`${baseUrl}/user`, { headers: { authorization: `Bearer ${token}` } });
    expect(user.status).toBe(200);
    expect(((await user.json()) as { login: string }).login).toBe(login);
  });

  it(
    'serves a page for the repository and the pull request a run prints: title, diagram, files, merge state',
    { timeout: 60_000 },
    async () => {
      const fake = await startFake();
      const dir = join(await tempDir(), 'app');
      const run = await maker(
        [
          'run',
          'a todo app',
          '--dir',
          dir,
          '--worker',
          'sim',
          '--max-depth',
          '1',
          '--no-checks',
          '--confidence',
          'low',
          '--hitl',
          'auto',
          '--github',
          'alice/app',
          '--json',
        ],
        { GITHUB_API_URL: fake.baseUrl, GITHUB_TOKEN: TOKENS.full },
      );
      expect(run.code, run.stderr).toBe(0);
      const summary = JSON.parse(run.stdout.trim().split('\n').at(-1) ?? '{}') as {
        repository: string;
        pullRequest: { url: string };
      };

      // The links as printed, opened as a browser opens them (no token: there is no sign-in).
      const repo = await fetch(summary.repository, { headers: HTML });
      expect(repo.status).toBe(200);
      expect(repo.headers.get('content-type')).toMatch(/^text\/html/);
      expect(repo.headers.get('content-security-policy')).toMatch(/default-src 'none'/);
      const repoHtml = await repo.text();
      expect(repoHtml).toMatch(/SIMULATED GitHub/);
      expect(repoHtml).toContain('<h1>alice/app</h1>');
      expect(repoHtml).toContain(`href="${summary.pullRequest.url}"`);

      const pull = await fetch(summary.pullRequest.url, { headers: HTML });
      expect(pull.status).toBe(200);
      const pullHtml = await pull.text();
      expect(pullHtml).toMatch(/<h1>#1 .*a todo app<\/h1>/);
      // The body's Mermaid tree is drawn as boxes, the root first, its text decoded and escaped.
      expect(pullHtml).toMatch(/<ul class="diagram"><li><span class="box" style="background:#/);
      expect(pullHtml).toMatch(/SIMULATED · a todo app/);
      expect(pullHtml).not.toContain('```mermaid');
      expect(pullHtml).toMatch(/<h2>Files changed \(9\)<\/h2>/);
      expect(pullHtml).toContain('<code>src/n0/index.mjs</code>');
      expect(pullHtml).toMatch(/class="state">Merged by alice/);

      // An API client (no HTML asked for) still gets GitHub's JSON at the same origin.
      const api = await fetch(`${fake.baseUrl}/repos/alice/app/pulls/1`, {
        headers: { authorization: `Bearer ${TOKENS.full}` },
      });
      expect(((await api.json()) as { merged: boolean }).merged).toBe(true);
    },
  );
});
