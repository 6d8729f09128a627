import { existsSync } from 'node:fs';
import { mkdir, readdir, symlink } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { startFakeGemini } from '../../src/offline/fake-gemini.js';
import { useTempDirs } from '../helpers/tmp.js';
import { text, useMcpClients } from '../helpers/mcp.js';

const tempDir = useTempDirs();
const connect = useMcpClients();
const closers: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const close of closers.splice(0).reverse()) await close();
});

describe('maker_start confines repo to the workspace', () => {
  it.each([
    ['../x', /climbs out of the repository/],
    ['/tmp/abs', /absolute path/],
    ['.git/hooks', /inside \.git/],
    ['sub/.GIT', /inside \.git/],
    ['a/../../b', /climbs out/],
    ['sub\\..\\..', /backslash/],
  ])('refuses %s and creates nothing', async (repo, reason) => {
    const parent = await tempDir();
    const workspace = join(parent, 'ws');
    await mkdir(workspace);
    const { call } = await connect(workspace);
    const refused = await call('maker_start', { idea: 'x', worker: 'sim', runChecks: false, repo });
    expect(refused.isError).toBe(true);
    expect(text(refused)).toMatch(reason);
    expect(await readdir(workspace)).toEqual([]);
    expect(await readdir(parent)).toEqual(['ws']);
    expect(existsSync('/tmp/abs')).toBe(false);
  });

  it('refuses a symlink that leads outside the workspace or into .git', async () => {
    const parent = await tempDir();
    const workspace = join(parent, 'ws');
    await mkdir(join(workspace, 'repo', '.git'), { recursive: true });
    await symlink(parent, join(workspace, 'out'));
    await symlink(join(workspace, 'repo', '.git'), join(workspace, 'hooks'));
    const { call } = await connect(workspace);
    const out = await call('maker_start', {
      idea: 'x',
      worker: 'sim',
      runChecks: false,
      repo: 'out/elsewhere',
    });
    expect(text(out)).toMatch(/outside the workspace/);
    const git = await call('maker_start', {
      idea: 'x',
      worker: 'sim',
      runChecks: false,
      repo: 'hooks',
    });
    expect(text(git)).toMatch(/into a \.git directory/);
    expect(existsSync(join(parent, 'elsewhere'))).toBe(false);
  });

  it.each(['dangling', 'dangling/sub', 'loop', 'loop/sub'])(
    'refuses %s, through a symlink that resolves nowhere, with a clear reason',
    async (repo) => {
      const parent = await tempDir();
      const workspace = join(parent, 'ws');
      await mkdir(workspace);
      await symlink(join(parent, 'outside'), join(workspace, 'dangling'));
      await symlink(join(workspace, 'loop'), join(workspace, 'loop'));
      const { call } = await connect(workspace);
      const refused = await call('maker_start', {
        idea: 'x',
        worker: 'sim',
        runChecks: false,
        repo,
      });
      expect(refused.isError).toBe(true);
      expect(text(refused)).toMatch(/symbolic link that leads nowhere/);
      expect(text(refused)).not.toMatch(/Unexpected error/);
      expect(await readdir(parent)).toEqual(['ws']);
    },
  );

  it('treats a symlinked spelling of a repository as the same one, and resumes runs in sub-repositories after a restart', async () => {
    const workspace = await tempDir();
    await mkdir(join(workspace, 'app'));
    await symlink(join(workspace, 'app'), join(workspace, 'alias'));
    const first = await connect(workspace);
    const a = await first.call('maker_start', {
      idea: 'first',
      worker: 'sim',
      runChecks: false,
      repo: 'app',
    });
    expect(a.isError).toBeFalsy();
    const runId = (a.structuredContent as { runId: string }).runId;
    // The same repository: a second run there is refused while the first is in progress.
    const b = await first.call('maker_start', {
      idea: 'second',
      worker: 'sim',
      runChecks: false,
      repo: 'alias',
    });
    expect(b.isError).toBe(true);
    expect(text(b)).toContain(`Run ${runId} is in progress`);
    await first.call('maker_cancel', { runId });
    await first.close();

    const second = await connect(workspace);
    const resumed = await second.call('maker_resume', { runId });
    expect(resumed.isError).toBeFalsy();
    expect(text(resumed)).toContain(runId);
    const status = await second.call('maker_status', { runId });
    expect(text(status)).toContain('"first"');
  });
});

describe('tool arguments are bounded', () => {
  it('refuses a 5 MB idea, an over-long answer and a malformed run id, and writes nothing', async () => {
    const workspace = await tempDir();
    const { call } = await connect(workspace);
    const huge = await call('maker_start', {
      idea: 'x'.repeat(5_000_000),
      worker: 'sim',
      runChecks: false,
    });
    expect(huge.isError).toBe(true);
    expect(await readdir(workspace)).toEqual([]);
    const badId = await call('maker_status', { runId: '../../etc' });
    expect(badId.isError).toBe(true);
    const long = await call('maker_answer', {
      runId: 'r1',
      questionId: 'q',
      answer: 'y'.repeat(10_000),
    });
    expect(long.isError).toBe(true);
  });
});

describe('what the server sends back', () => {
  it('never carries a configured key, even when a service quotes it', async () => {
    const keys = { GEMINI_API_KEY: 'gem-key-mcp-0001', JULES_API_KEY: 'jules-key-mcp-0002' };
    const fake = await startFakeGemini(() => ({
      status: 400,
      message: `refused; saw ${keys.GEMINI_API_KEY} and ${keys.JULES_API_KEY}`,
    }));
    closers.push(() => fake.close());
    const workspace = await tempDir();
    const { call } = await connect(workspace, { ...keys, GOOGLE_GEMINI_BASE_URL: fake.baseUrl });
    const started = await call('maker_start', { idea: 'x', worker: 'gemini' });
    const runId = (started.structuredContent as { runId: string }).runId;
    let waited = started;
    for (let i = 0; i < 5 && !/: failed\./.test(text(waited)); i++)
      waited = await call('maker_wait', { runId, seconds: 30 });
    expect(text(waited)).toMatch(/refused; saw \[redacted\] and \[redacted\]/);
    const all = JSON.stringify([waited, await call('maker_status', { runId })]);
    for (const key of Object.values(keys)) expect(all).not.toContain(key);
  });
});
