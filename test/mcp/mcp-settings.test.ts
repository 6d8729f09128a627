import { execFileSync } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { useFakeGitHub } from '../helpers/github.js';
import { text, useMcpClients } from '../helpers/mcp.js';
import { useTempDirs } from '../helpers/tmp.js';

/**
 * The extension's settings as Gemini CLI hands them to the server: a setting left unset arrives as
 * its literal reference (`${GITHUB_TOKEN}`), which must count as unset, never as a value.
 */
const tempDir = useTempDirs();
const connect = useMcpClients();
const startFake = useFakeGitHub();

describe('unset extension settings (unresolved ${VAR} references)', () => {
  it('an unset GitHub token lets a run in a clone of a GitHub repository compose locally, as with no token', async () => {
    const fake = await startFake();
    const dir = await tempDir();
    execFileSync('git', ['init', '-q', '--initial-branch=main', dir]);
    execFileSync('git', ['-C', dir, 'remote', 'add', 'origin', `${fake.baseUrl}/alice/app.git`]);
    const { call } = await connect(dir, {
      GITHUB_API_URL: fake.baseUrl,
      GITHUB_TOKEN: '${GITHUB_TOKEN}',
      JULES_API_KEY: '${JULES_API_KEY}',
      GEMINI_API_KEY: '${GEMINI_API_KEY}',
    });
    const started = await call('maker_start', {
      idea: 'a csv tool',
      worker: 'sim',
      runChecks: false,
      sim: { clarify: false },
    });
    expect(started.isError, text(started)).toBeFalsy();
    expect(text(started)).toMatch(/there is no GitHub token: the run composes locally only/);
  });
});
