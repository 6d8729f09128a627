import { chmod, mkdir, writeFile } from 'node:fs/promises';
import { delimiter, join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { DEFAULT_FAKE_OPTIONS, useFakeGitHub } from '../helpers/github.js';
import { maker } from '../helpers/cli.js';
import { main } from '../../src/surfaces/cli/main.js';
import { useTempDirs } from '../helpers/tmp.js';

/**
 * A GitHub token that only `gh auth token` gives (no GITHUB_TOKEN), of no format a pattern knows
 * (a GitHub Enterprise token, say): what the terminal prints never carries it, though nothing but
 * its value can find it. Before, only the environment's keys reached the CLI's own redactor.
 */
const tempDir = useTempDirs();
const startFake = useFakeGitHub();

const TOKEN = 'enterprise-token-5d1e8b7c';

/** A directory holding a `gh` that is signed in and answers `gh auth token` with {@link TOKEN}. */
async function signedInGh(): Promise<string> {
  const bin = join(await tempDir(), 'bin');
  await mkdir(bin);
  const gh = join(bin, 'gh');
  await writeFile(
    gh,
    `#!/bin/sh\nif [ "$1 $2" = "auth token" ]; then echo '${TOKEN}'; exit 0; fi\nexit 1\n`,
  );
  await chmod(gh, 0o755);
  return bin;
}

describe("the terminal's output and a token from `gh auth token`", () => {
  it('never prints the token, even where the run echoes what the person typed', async () => {
    const fake = await startFake({
      tokens: [...DEFAULT_FAKE_OPTIONS.tokens, { token: TOKEN, login: 'alice' }],
    });
    const bin = await signedInGh();
    const dir = join(await tempDir(), 'app');
    const idea = `a csv tool; my token is ${TOKEN}`;
    for (const json of [false, true]) {
      const result = await maker(
        [
          'run',
          idea,
          '--dir',
          `${dir}${json ? '-json' : ''}`,
          '--worker',
          'sim',
          '--no-checks',
          '--hitl',
          'auto',
          '--max-depth',
          '0',
          '--github',
          `alice/app${json ? '-json' : ''}`,
          ...(json ? ['--json'] : []),
        ],
        {
          GITHUB_API_URL: fake.baseUrl,
          PATH: `${bin}${delimiter}${process.env['PATH'] ?? ''}`,
        },
      );
      expect(result.code, result.stderr).toBe(0);
      // It ran with gh's token: the pull request was opened with it.
      expect(fake.requests.some((r) => r.method === 'POST' && r.path.endsWith('/pulls'))).toBe(
        true,
      );
      // The idea is echoed, with the token redacted.
      expect(`${result.stdout}${result.stderr}`).toContain('my token is [redacted]');
      expect(`${result.stdout}${result.stderr}`).not.toContain(TOKEN);
    }
  }, 120_000);

  it("fills the list it is given with the environment's keys: the process's crash message is redacted over it", async () => {
    // Proves: `runFromProcess` hands `main` a list and redacts a crash's message over the same
    // list, so a key `main`'s commands found (gh's token) is redacted there too.
    const secrets = ['found-later-1234'];
    const out: string[] = [];
    const code = await main(['--version'], {
      stdout: (t) => void out.push(t),
      stderr: (t) => void out.push(t),
      stderrIsTty: false,
      stdinIsTty: false,
      cwd: process.cwd(),
      env: { GEMINI_API_KEY: 'gemini-key-5678' },
      secrets,
    });
    expect(code).toBe(0);
    expect(secrets).toEqual(['found-later-1234', 'gemini-key-5678']);
  });
});
