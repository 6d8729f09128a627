import { chmod, mkdir, readFile, writeFile } from 'node:fs/promises';
import { delimiter, join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { makeRedactor } from '../../src/core/errors.js';
import { outputRedactor } from '../../src/core/credential-redaction.js';
import { engineOver } from '../../src/app/open-engine.js';
import { githubToken } from '../../src/app/github/plan.js';
import { chooseSettings, readSettings, withGitHub } from '../../src/app/settings.js';
import { openWorkspace } from '../../src/app/wiring/wiring.js';
import { baseConfig } from '../helpers/engine.js';
import { initCommitted } from '../helpers/repo.js';
import { useTempDirs } from '../helpers/tmp.js';
import { workspaceSettings } from '../helpers/settings.js';

const tempDir = useTempDirs();

/** A token of no known format (a GitHub Enterprise token from `gh auth token`, say): only its value can redact it. */
const TOKEN = 'enterprise-token-7f3a9c2e';

async function repository(): Promise<string> {
  return initCommitted(await tempDir());
}

describe("a run's secrets", () => {
  it('grow with a list that grows: a redactor made before a value was added redacts it', () => {
    const secrets = ['first-secret-1'];
    const redact = makeRedactor(secrets);
    expect(redact(`a ${TOKEN}`)).toBe(`a ${TOKEN}`);
    secrets.push(TOKEN);
    expect(redact(`a ${TOKEN} and first-secret-1`)).toBe('a [redacted] and [redacted]');
  });

  it("grow in what checks print too: the output redactor follows the run's keys", async () => {
    const keys: string[] = [];
    const redact = outputRedactor([], keys);
    expect(await redact(`echo ${TOKEN}`)).toContain(TOKEN);
    keys.push(TOKEN);
    expect(await redact(`echo ${TOKEN}`)).not.toContain(TOKEN);
  });

  it.each([
    ['given as a value (a terminal’s run)', (): string | (() => string) => TOKEN],
    ['read when used (the MCP server’s, set per repository)', () => () => TOKEN],
  ])(
    'hold the GitHub token %s, which no environment variable holds: the state and the journal never carry it',
    async (_how, token) => {
      // Proves: a token found by `gh auth token` (not in the environment, so not in the settings'
      // secrets) is redacted from what the engine writes, as GITHUB_TOKEN's value is.
      const dir = await repository();
      const workspace = await openWorkspace(dir, false, workspaceSettings());
      const engine = await engineOver(dir, workspace, readSettings({}), token());
      try {
        const runId = await engine.create(`a note app; my token is ${TOKEN}`, {
          ...baseConfig,
          maxDepth: 0,
        });
        await engine.run(runId);
        const written = await Promise.all(
          ['maker-state.json', 'maker-state.json.log', 'maker-journal.jsonl'].map((name) =>
            readFile(join(dir, name), 'utf8').catch(() => ''),
          ),
        );
        expect(written[0]).toContain('my token is [redacted]');
        expect(written[2]).not.toBe(''); // the journal was written
        expect(written.join('')).not.toContain(TOKEN);
      } finally {
        engine.close();
        await workspace.close();
      }
    },
  );

  it("take in gh's token where it is read: a redactor made over the process's keys before (the terminal's) redacts it", async () => {
    // Proves: the surfaces' own redactors (the CLI's output, the MCP server's results) are made
    // before any token is read, over the process's list; `githubToken` adds gh's token to it, and
    // settings derived from those read (a run's recorded choices, its GitHub) share the list.
    const bin = join(await tempDir(), 'bin');
    await mkdir(bin);
    await writeFile(join(bin, 'gh'), `#!/bin/sh\necho '${TOKEN}'\n`);
    await chmod(join(bin, 'gh'), 0o755);
    const keys = ['env-key-1234'];
    const terminal = makeRedactor(keys);
    const env = {
      PATH: `${bin}${delimiter}${process.env['PATH'] ?? ''}`,
      GEMINI_API_KEY: 'gem-key-5678',
    };
    const settings = readSettings(env, {}, keys);
    expect(settings.secrets).toBe(keys);
    expect(keys).toEqual(['env-key-1234', 'gem-key-5678']);
    const derived = withGitHub(chooseSettings(settings, { modelAccess: 'api-key' }), {
      apiUrl: 'http://127.0.0.1:1/',
    });
    expect(terminal(`${TOKEN} gem-key-5678`)).toBe(`${TOKEN} [redacted]`);

    const found = await githubToken(derived, 'http://127.0.0.1:1/');
    expect(found).toEqual({ token: TOKEN, source: 'gh auth token' });
    expect(terminal(`push failed for ${TOKEN}`)).toBe('push failed for [redacted]');
    expect(makeRedactor(settings.secrets)(TOKEN)).toBe('[redacted]');
  });
});
