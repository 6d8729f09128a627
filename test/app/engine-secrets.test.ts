import { execFileSync } from 'node:child_process';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { makeRedactor } from '../../src/core/errors.js';
import { outputRedactor } from '../../src/core/credential-redaction.js';
import { engineOver } from '../../src/app/open-engine.js';
import { readSettings } from '../../src/app/settings.js';
import { openWorkspace } from '../../src/app/wiring/wiring.js';
import { baseConfig } from '../helpers/engine.js';
import { useTempDirs } from '../helpers/tmp.js';

const tempDir = useTempDirs();

/** A token of no known format (a GitHub Enterprise token from `gh auth token`, say): only its value can redact it. */
const TOKEN = 'enterprise-token-7f3a9c2e';

async function repository(): Promise<string> {
  const dir = await tempDir();
  const git = (...args: string[]) => execFileSync('git', args, { cwd: dir, stdio: 'ignore' });
  git('init', '-q', '-b', 'main');
  git(
    '-c',
    'user.name=t',
    '-c',
    'user.email=t@example.com',
    'commit',
    '-q',
    '--allow-empty',
    '-m',
    'start',
  );
  return dir;
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
      const workspace = await openWorkspace(dir, false);
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
});
