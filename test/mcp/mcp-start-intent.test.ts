import { execFileSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { describe, expect, it } from 'vitest';
import { maker } from '../helpers/cli.js';
import { makerGroup } from '../helpers/process-group.js';
import { until } from '../helpers/processes.js';
import { TOKENS, useFakeGitHub } from '../helpers/github.js';
import { text, useMcpClients, waitToEnd } from '../helpers/mcp.js';
import { useSharedTempDirs, useTempDirs } from '../helpers/tmp.js';

/**
 * Issue #27 item 4, for the MCP server: `maker_start` records the run's intent after taking the
 * workspace's lock and before its first side effect (`git init`, the GitHub repository), as
 * `maker run` does; a server killed in between (MAKER_CRASH_AT, not timing) leaves a start that
 * `maker resume` finishes, and that a second `maker_start` refuses to start over.
 */
const tempDir = useTempDirs();
const sharedDir = useSharedTempDirs();
const connect = useMcpClients();
const startFake = useFakeGitHub();
const git = (cwd: string, ...args: string[]) =>
  execFileSync('git', args, { cwd, encoding: 'utf8' }).trim();
/**
 * Without checks and one level of subtasks (4 nodes, not 12): what is tested is the start and its
 * resume, not the checks or the tree's size.
 */
const START = {
  idea: 'a tool',
  repo: 'proj',
  worker: 'sim',
  runChecks: false,
  maxDepth: 1,
  sim: { seed: 7, clarify: false },
};

interface Saved {
  starting?: { id: string; command: string; idea: string };
  runs: Record<string, { status: string }>;
}
const saved = async (dir: string) =>
  JSON.parse(await readFile(join(dir, 'maker-state.json'), 'utf8')) as Saved;

/**
 * One unkilled `maker_start` of START in a workspace of its own, driven to its end: made once, by
 * whichever test needs it first (one asserts what it leaves, one compares a resumed run's tree to
 * its tree).
 */
let unkilled: Promise<{ workspace: string; runId: string }> | undefined;
function unkilledRun(): Promise<{ workspace: string; runId: string }> {
  unkilled ??= (async () => {
    const workspace = await sharedDir();
    const { call, close } = await connect(workspace);
    const started = await call('maker_start', START);
    expect(started.isError, text(started)).toBeFalsy();
    const runId = (started.structuredContent as { runId: string }).runId;
    expect(await waitToEnd(call, runId)).toMatch(/: done\./);
    await close();
    return { workspace, runId };
  })();
  return unkilled;
}

/** The bundled server, killed by the seam `step` during a `maker_start`. */
async function killedAt(
  workspace: string,
  step: string,
  start: Record<string, unknown> = START,
  env: Record<string, string> = {},
): Promise<void> {
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: [join(process.cwd(), 'dist', 'maker-mcp.js')],
    cwd: workspace,
    env: {
      PATH: process.env['PATH'] ?? '',
      MAKER_WORKSPACE: workspace,
      MAKER_CRASH_AT: step,
      ...env,
    },
    stderr: 'pipe',
  });
  const client = new Client({ name: 'test', version: '1' });
  await client.connect(transport);
  try {
    await expect(client.callTool({ name: 'maker_start', arguments: start })).rejects.toThrow();
  } finally {
    await client.close();
  }
}

describe('maker_start and the intent it records first', () => {
  it('a run leaves no starting record beside it', async () => {
    const { workspace, runId } = await unkilledRun();
    const state = await saved(join(workspace, 'proj'));
    expect(state.starting).toBeUndefined();
    expect(state.runs[runId]?.status).toBe('done');
  }, 120_000);

  it('an empty idea is refused before the intent: nothing is left', async () => {
    // Failed without the guard ('expected true to be false'): engine.create refused it only after
    // git init and the intent, leaving the folder, .git and a start that no resume could finish.
    const workspace = await tempDir();
    const { call } = await connect(workspace);
    const refused = await call('maker_start', { ...START, idea: '   ' });
    expect(text(refused)).toContain('The idea is empty');
    expect(existsSync(join(workspace, 'proj'))).toBe(false);
  });

  it('killed between the intent and the set-up: refused by maker_start, finished by maker_resume or maker resume with the tree of an unkilled run', async () => {
    // Failed at main: no intent was saved (killed at 'start:set-up' the folder held a bare git
    // repository and no maker-state.json; the seam 'start:intent-saved' was never reached).
    // maker_resume finishing it failed before it could (it told the person to use a terminal).
    // The tree of an unkilled run (the one the first test looks at).
    const tree = git(join((await unkilledRun()).workspace, 'proj'), 'rev-parse', 'main^{tree}');

    for (const [step, finisher] of [
      ['start:intent-saved', 'maker_resume'],
      ['start:set-up', 'maker_resume'],
      ['start:set-up', 'maker resume'],
    ] as const) {
      const at = `${step}, ${finisher}`;
      const workspace = await tempDir();
      const dir = join(workspace, 'proj');
      await killedAt(workspace, step);
      const pending = (await saved(dir)).starting;
      expect(pending, at).toMatchObject({ command: 'mcp', idea: 'a tool' });

      const { call, close } = await connect(workspace);
      const refused = await call('maker_start', { ...START, idea: 'another tool' });
      expect(refused.isError, at).toBe(true);
      expect(text(refused), at).toContain(`Run ${pending?.id}`);
      expect(text(refused), at).toMatch(/interrupted while starting \(maker_start/);
      expect(text(refused), at).toContain('maker_resume finishes it');
      expect(text(refused), at).toContain(`when given its runId "${pending?.id}"`);
      expect(text(refused), at).toContain(`maker resume --dir ${dir}`);
      expect((await saved(dir)).starting, at).toEqual(pending);

      if (finisher === 'maker_resume') {
        const resumed = await call('maker_resume', {});
        expect(resumed.isError, text(resumed)).toBeFalsy();
        expect(text(resumed), at).toContain(`Resumed run ${pending?.id}`);
        expect(await waitToEnd(call, pending?.id ?? ''), at).toMatch(/: done\./);
      } else {
        // With Gemini CLI still open: its server, which only looked at the repository, holds no lock.
        const resumed = await maker(['resume', '--dir', dir, '--hitl', 'auto']);
        expect(resumed.code, `${at}: ${resumed.stderr}`).toBe(0);
      }
      await close();
      const state = await saved(dir);
      expect(state.starting, at).toBeUndefined();
      expect(state.runs[pending?.id ?? '']?.status, at).toBe('done');
      expect(git(dir, 'rev-parse', 'main^{tree}'), at).toBe(tree);
    }
  }, 300_000);

  it('maker_resume leaves a start that another live process is making, and finishes it by its runId once that process is killed', async () => {
    // Proves: a start under way (its process holds the workspace's lock) is not taken for an
    // interrupted one; maker_resume says so instead of finishing it twice. Once its process is
    // gone (a terminal's `maker run`, killed), maker_resume names it, and finishes it when given
    // its runId (a person may have stopped it on purpose), questions and all.
    const workspace = await tempDir();
    const dir = join(workspace, 'proj');
    const run = makerGroup(
      ['run', 'a tool', '--dir', dir, '--worker', 'sim', '--hitl', 'defer', '--no-checks'],
      { MAKER_STOP_AT: 'start:intent-saved' },
    );
    let pending: Saved['starting'];
    const { call, close } = await connect(workspace);
    try {
      expect(await until(() => run.stopped(), 60_000), 'the run stopped at its intent').toBe(true);
      pending = (await saved(dir)).starting;
      expect(pending).toMatchObject({ command: 'run', idea: 'a tool' });
      const refused = await call('maker_resume', {});
      expect(refused.isError).toBe(true);
      expect(text(refused)).toContain(`Run ${pending?.id} ("a tool") is still starting in ${dir}`);
      expect((await saved(dir)).starting).toEqual(pending);
    } finally {
      process.kill(run.pid, 'SIGKILL');
      process.kill(run.pid, 'SIGCONT');
      await run.ended;
    }
    const named = await call('maker_resume', {});
    expect(named.isError).toBe(true);
    expect(text(named)).toContain(`when given its runId "${pending?.id}"`);
    expect((await saved(dir)).starting).toEqual(pending);
    const resumed = await call('maker_resume', { runId: pending?.id });
    expect(resumed.isError, text(resumed)).toBeFalsy();
    expect(text(resumed)).toContain(`Resumed run ${pending?.id}`);
    expect(await waitToEnd(call, pending?.id ?? '')).toMatch(/: done\./);
    await close();
    const state = await saved(dir);
    expect(state.starting).toBeUndefined();
    expect(state.runs[pending?.id ?? '']?.status).toBe('done');
  }, 120_000);

  it("maker_resume without a runId continues the workspace's unfinished run, past a terminal's interrupted starts", async () => {
    // Failed before the fix (a review found it): the first interrupted start found anywhere under
    // the workspace was taken, so a killed `maker demo` blocked every maker_resume, and a killed
    // `maker run` was finished (its GitHub repository made, its requests spent) instead of the run
    // the person was continuing.
    const workspace = await tempDir();
    const waiting = await maker([
      'run',
      'a note',
      '--dir',
      workspace,
      '--worker',
      'sim',
      '--hitl',
      'defer',
      '--no-checks',
    ]);
    expect(waiting.code, waiting.stderr).toBe(4);
    const [runId] = Object.keys((await saved(workspace)).runs);
    const crash = { MAKER_CRASH_AT: 'start:intent-saved' };
    const demo = await maker(['demo', '--dir', join(workspace, 'demo')], crash);
    const other = await maker(
      ['run', 'other', '--dir', join(workspace, 'other'), '--worker', 'sim', '--no-checks'],
      crash,
    );
    expect([demo.code, other.code]).toEqual([null, null]); // killed
    const starts = [
      (await saved(join(workspace, 'demo'))).starting,
      (await saved(join(workspace, 'other'))).starting,
    ];
    expect(starts.map((s) => s?.command)).toEqual(['demo', 'run']);

    const { call, close } = await connect(workspace);
    const resumed = await call('maker_resume', {});
    expect(resumed.isError, text(resumed)).toBeFalsy();
    expect(text(resumed)).toContain(`Resumed run ${runId}`);
    const demoStart = await call('maker_resume', { runId: starts[0]?.id });
    expect(demoStart.isError).toBe(true);
    expect(text(demoStart)).toContain(`maker resume --dir ${join(workspace, 'demo')}`);
    await close();
    expect((await saved(join(workspace, 'demo'))).starting).toEqual(starts[0]);
    expect((await saved(join(workspace, 'other'))).starting).toEqual(starts[1]);
  }, 120_000);

  it('killed once its GitHub repository was created: maker_resume finishes it with one repository and one merged pull request', async () => {
    // Failed at main as above: the server was not killed there (no seam passed to the set-up).
    const fake = await startFake();
    const env = { GITHUB_API_URL: fake.baseUrl, GITHUB_TOKEN: TOKENS.full };
    const workspace = await tempDir();
    const dir = join(workspace, 'proj');
    await killedAt(workspace, 'github:repository-ensured', { ...START, github: 'alice/app' }, env);
    const pending = (await saved(dir)).starting;
    expect(pending).toMatchObject({ command: 'mcp', github: { owner: 'alice', name: 'app' } });
    expect((await fake.state()).repos).toHaveLength(1);

    const { call, close } = await connect(workspace, env);
    const refused = await call('maker_start', { ...START, github: 'alice/app' });
    expect(text(refused)).toMatch(/interrupted while starting.*maker resume --dir/s);

    const resumed = await call('maker_resume', {});
    expect(resumed.isError, text(resumed)).toBeFalsy();
    expect(await waitToEnd(call, pending?.id ?? '')).toMatch(/: done\./);
    // The server ends its runs' saves before it exits.
    await close();
    expect((await saved(dir)).runs[pending?.id ?? '']?.status).toBe('done');
    const repos = (await fake.state()).repos;
    expect(repos).toHaveLength(1);
    expect(repos[0]?.pulls.map((p) => p.merged)).toEqual([true]);
  }, 120_000);
});
