import { execFileSync } from 'node:child_process';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { TOKENS, useFakeGitHub } from '../helpers/github.js';
import { useTempDirs } from '../helpers/tmp.js';
import { text, useMcpClients } from '../helpers/mcp.js';

/** maker_start with `github`, driven by an MCP client to a merged pull request on the fake GitHub. */
const tempDir = useTempDirs();
const connect = useMcpClients();
const startFake = useFakeGitHub();

describe('maker_start with github (MCP)', () => {
  it('takes an empty folder to a merged pull request; status and the veto question carry the URLs', async () => {
    const fake = await startFake();
    const dir = await tempDir();
    const { call } = await connect(dir, {
      GITHUB_API_URL: fake.baseUrl,
      GITHUB_TOKEN: TOKENS.full,
    });

    const started = await call('maker_start', {
      idea: 'a csv tool',
      worker: 'sim',
      runChecks: false,
      github: 'alice/mcp-app',
      sim: { clarify: false },
    });
    expect(started.isError, text(started)).toBeFalsy();
    expect(text(started)).toContain(
      `GitHub: created private repository ${fake.baseUrl}/alice/mcp-app`,
    );
    const runId = (started.structuredContent as { runId: string }).runId;
    let cursor = 0;
    let waited = started;
    let vetoPrompt = '';
    for (let i = 0; i < 12 && !/: (done|vetoed|failed)\./.test(text(waited)); i++) {
      waited = await call('maker_wait', { runId, cursor, seconds: 60 });
      cursor = (waited.structuredContent as { cursor: number }).cursor;
      for (const [line, id] of text(waited).matchAll(/questionId="([^"]+)" \((\w+)\).*/g)) {
        if (id === 'q-root-veto') vetoPrompt = line;
        await call('maker_answer', { runId, questionId: id, answer: '1' });
      }
    }
    expect(text(waited)).toMatch(/: done\./);
    expect(vetoPrompt).toContain(`${fake.baseUrl}/alice/mcp-app/pull/1`);
    const status = text(await call('maker_status', { runId }));
    expect(status).toContain(
      `GitHub: ${fake.baseUrl}/alice/mcp-app; pull request #1 (merged): ${fake.baseUrl}/alice/mcp-app/pull/1`,
    );
    const repo = (await fake.state()).repos[0];
    expect(repo?.pulls).toHaveLength(1);
    expect(repo?.pulls[0]?.merged).toBe(true);
    const tree = (git: string, ref: string) =>
      execFileSync('git', ['--git-dir', git, 'rev-parse', `${ref}^{tree}`], {
        encoding: 'utf8',
      }).trim();
    expect(tree(join(fake.root, 'alice', 'mcp-app.git'), 'main')).toBe(
      tree(join(dir, '.git'), 'main'),
    );
  }, 120_000);
});
