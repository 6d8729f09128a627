import { execFile, execFileSync, spawn } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { cp, mkdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { stateFileSchema } from '../../src/core/tree/schema.js';
import {
  startFakeGemini,
  type FakeGemini,
  type FakeGeminiReply,
  type FakeGeminiRequest,
} from '../../src/offline/fake-gemini.js';
import { useSharedTempDirs, useTempDirs } from '../helpers/tmp.js';
import { geminiBinary } from './gemini-binary.js';
import { candidateTree } from '../../src/engine/leaf/leaf.js';
import { tally } from '../../src/engine/vote/votes.js';
import { clip } from '../../src/core/limits.js';

/**
 * End to end through the real `gemini` binary (npm @google/gemini-cli, installed here into a cache,
 * never into the project's dependencies), with the extension linked from this checkout and a local
 * fake model that plays the person's assistant: it calls the maker tools and relays answers.
 */
const GEMINI_CLI_VERSION = '0.61.0';
const CACHE = join(
  process.cwd(),
  'node_modules',
  '.cache',
  'maker-e2e',
  `gemini-cli-${GEMINI_CLI_VERSION}`,
);
const binary = await geminiBinary({ cache: CACHE, version: GEMINI_CLI_VERSION });
if ('skip' in binary) process.stderr.write(`\ne2e: ${binary.skip}\n\n`);
const GEMINI = 'path' in binary ? binary.path : '';
const run = promisify(execFile);
/**
 * Every `gemini` here starts without its relaunch: Gemini CLI re-runs itself in a child with a
 * bigger heap and `GEMINI_CLI_NO_RELAUNCH=true` (its only change to that child's environment), a
 * second start of the CLI that costs about 2 s of CPU each time and changes nothing MAKER sees.
 */
const GEMINI_ENV = { ...process.env, GEMINI_CLI_NO_RELAUNCH: 'true' };
const tempDir = useTempDirs();
const sharedTempDir = useSharedTempDirs();
let fake: FakeGemini | undefined;

afterEach(async () => {
  await fake?.close();
  fake = undefined;
});

interface Pending {
  readonly id: string;
  readonly kind: string;
  readonly options: readonly string[];
}

/** The pending questions a maker tool result lists (the text the model sees). */
function pendingIn(text: string): Pending[] {
  const out: Pending[] = [];
  for (const block of text.split(/\n(?=- questionId=)/)) {
    const head = /^- questionId="([^"]+)" \((\w+)\)/.exec(block);
    if (head === null) continue;
    out.push({
      id: head[1] as string,
      kind: head[2] as string,
      options: [...block.matchAll(/option "([^"]+)"/g)].map((m) => m[1] as string),
    });
  }
  return out;
}

/**
 * A scripted model: start (or resume) a run, follow it with maker_wait and the cursor it returns,
 * relay each question to `answer` (the "person"), and stop with a summary when the run ends.
 */
function assistant(options: {
  first: () => FakeGeminiReply;
  answer: (q: Pending) => string;
  after?: (fn: string, text: string) => FakeGeminiReply | undefined;
}) {
  let runId = '';
  return (request: FakeGeminiRequest): FakeGeminiReply => {
    if (request.method === 'generateContent')
      return { text: JSON.stringify({ next_speaker: 'user', reasoning: 'done' }) };
    const response = request.functionResponse;
    if (response === undefined) return options.first();
    const text = response.text;
    runId = /Run (r[\w-]+)/.exec(text)?.[1] ?? /runId="([^"]+)"/.exec(text)?.[1] ?? runId;
    const custom = options.after?.(response.name, text);
    if (custom !== undefined) return custom;
    const pending = pendingIn(text);
    const first = pending[0];
    if (first !== undefined)
      return {
        text: '',
        functionCalls: [
          {
            name: 'mcp_maker_maker_answer',
            args: { runId, questionId: first.id, answer: options.answer(first) },
          },
        ],
      };
    const ended = /\): (done|vetoed|failed|cancelled)\./.exec(text);
    if (ended !== null) return { text: `MAKER run ${runId} ${ended[1]}.` };
    const cursor = Number(/cursor=(\d+)/.exec(text)?.[1] ?? '0');
    return {
      text: '',
      functionCalls: [{ name: 'mcp_maker_maker_wait', args: { runId, cursor, seconds: 60 } }],
    };
  };
}

/**
 * The model's first answer: start a sim run, without checks (they are tested elsewhere; a run with
 * them takes several times as long) and one level deep (the root's split, its clarify question and
 * a few leaves: the size of the run is not what these tests are about).
 */
const start =
  (sim: Record<string, unknown> = {}) =>
  () => ({
    text: '',
    functionCalls: [
      {
        name: 'mcp_maker_maker_start',
        args: {
          idea: 'a CLI that converts CSV to JSON',
          worker: 'sim',
          runChecks: false,
          maxDepth: 1,
          sim,
        },
      },
    ],
  });

/**
 * A fresh Gemini CLI home whose settings pin API-key auth (the base-URL auth bug), trust the folder
 * and turn off telemetry and update checks.
 */
async function settingsHome(home?: string): Promise<string> {
  home ??= await tempDir();
  await mkdir(join(home, '.gemini'), { recursive: true });
  await writeFile(
    join(home, '.gemini', 'settings.json'),
    JSON.stringify({
      security: { auth: { selectedType: 'gemini-api-key' }, folderTrust: { enabled: false } },
      privacy: { usageStatisticsEnabled: false },
      general: { enableAutoUpdate: false, enableAutoUpdateNotification: false },
    }),
  );
  return home;
}

/** A Gemini CLI home with the extension linked (answering each settings prompt as it appears). */
async function linkedHome(home: string): Promise<string> {
  await settingsHome(home);
  await new Promise<void>((resolve, reject) => {
    const child = spawn(GEMINI, ['extensions', 'link', process.cwd(), '--consent'], {
      env: { ...GEMINI_ENV, GEMINI_CLI_HOME: home },
    });
    const prompts = ['Gemini API key', 'Jules API key', 'GitHub token'];
    let seen = '';
    const onData = (chunk: Buffer) => {
      seen += chunk.toString();
      while (prompts.length > 0 && seen.includes(prompts[0] as string)) {
        seen = seen.slice(seen.indexOf(prompts[0] as string) + (prompts[0] as string).length);
        prompts.shift();
        child.stdin.write('\n');
      }
    };
    child.stdout.on('data', onData);
    child.stderr.on('data', onData);
    const timer = setTimeout(() => child.kill('SIGKILL'), 60_000);
    child.on('error', reject);
    child.on('exit', (code) => {
      clearTimeout(timer);
      if (code === 0) resolve();
      else reject(new Error(`gemini extensions link exited ${code}: ${seen}`));
    });
  });
  return home;
}

/** The home linked once for this file (a `gemini` start each time saved). */
let linked: string | undefined;
beforeAll(async () => {
  if (!('skip' in binary)) linked = await linkedHome(await sharedTempDir());
});

/** A fresh Gemini CLI home with the extension linked: a copy of the file's linked home. */
async function geminiHome(): Promise<string> {
  const home = await tempDir();
  await cp(linked ?? '', home, { recursive: true, verbatimSymlinks: true });
  return home;
}

/** Runs `gemini -p prompt` headless in `workspace`; returns its stream-json events. */
async function gemini(
  home: string,
  workspace: string,
  prompt: string,
): Promise<Record<string, unknown>[]> {
  const { stdout } = await run(
    GEMINI,
    ['-m', 'gemini-2.5-flash', '-y', '-p', prompt, '-o', 'stream-json'],
    {
      cwd: workspace,
      timeout: 120_000,
      maxBuffer: 16 * 1024 * 1024,
      env: {
        ...GEMINI_ENV,
        GEMINI_CLI_HOME: home,
        GEMINI_API_KEY: 'fake-key',
        GOOGLE_GEMINI_BASE_URL: fake?.baseUrl ?? '',
      },
    },
  );
  return stdout
    .split('\n')
    .filter((l) => l.startsWith('{'))
    .map((l) => JSON.parse(l) as Record<string, unknown>);
}

const toolCalls = (events: Record<string, unknown>[]) =>
  events.filter((e) => e['type'] === 'tool_use').map((e) => String(e['tool_name']));
const git = (dir: string, ...args: string[]) =>
  execFileSync('git', args, { cwd: dir, encoding: 'utf8' }).trim();
async function state(workspace: string) {
  return stateFileSchema.parse(
    JSON.parse(await readFile(join(workspace, 'maker-state.json'), 'utf8')),
  );
}

describe.skipIf('skip' in binary)('MAKER inside the real Gemini CLI', () => {
  it('passes gemini extensions validate', async () => {
    const home = await tempDir();
    const { stdout, stderr } = await run(GEMINI, ['extensions', 'validate', process.cwd()], {
      env: { ...GEMINI_ENV, GEMINI_CLI_HOME: home },
      timeout: 60_000,
    });
    expect(`${stdout}${stderr}`).not.toMatch(/error|invalid|warning/i);
  }, 60_000);

  it('/maker idea-to-product runs a sim run, relays the clarify question through maker_answer, and reports the result', async () => {
    const answered: Pending[] = [];
    fake = await startFakeGemini(
      assistant({
        first: start(),
        answer: (q) => (
          answered.push(q),
          q.kind === 'clarify' ? 'only a command-line tool' : 'accept'
        ),
      }),
    );
    const [home, workspace] = [await geminiHome(), await tempDir()];
    const events = await gemini(
      home,
      workspace,
      '/maker idea-to-product "a CLI that converts CSV to JSON"',
    );
    expect(toolCalls(events)[0]).toBe('mcp_maker_maker_start');
    expect(toolCalls(events)).toContain('mcp_maker_maker_wait');
    expect(answered.map((q) => q.kind)).toEqual(['clarify', 'veto']);
    expect(events.at(-1)).toMatchObject({ type: 'result', status: 'success' });
    // The command's prompt reached the model with the idea; the result landed.
    expect(fake.requests[0]?.prompt).toContain('a CLI that converts CSV to JSON');
    const run = Object.values((await state(workspace)).runs)[0];
    expect(run?.status).toBe('done');
    expect(run?.nodes['root']?.clarifications[0]?.answer).toBe('only a command-line tool');
    expect(git(workspace, 'rev-parse', 'main')).toBe(run?.result?.finalCommit);
    // Consecutive waits differ (Gemini CLI stops a session after 5 identical calls).
    const waits = events
      .filter((e) => e['tool_name'] === 'mcp_maker_maker_wait')
      .map((e) => JSON.stringify(e['parameters']));
    for (let i = 1; i < waits.length; i++) expect(waits[i]).not.toBe(waits[i - 1]);
  }, 180_000);

  it('a split vote becomes a select question, and the person’s choice is what gets committed', async () => {
    const chosen: string[] = [];
    fake = await startFakeGemini(
      assistant({
        // This seed's run (4 nodes) splits the vote on node 1 between two candidates: the person
        // picks the second, never what `--hitl auto` would take.
        first: start({ seed: 7, errorRate: 0.5, judgeAccuracy: 0.2 }),
        answer: (q) => {
          if (q.kind !== 'select') return q.kind === 'clarify' ? 'either' : 'accept';
          const candidates = q.options.filter((o) => o.startsWith('candidate-'));
          const pick = candidates.at(-1) ?? q.options[0] ?? '';
          chosen.push(`${q.id}=${pick}`);
          return pick;
        },
      }),
    );
    const [home, workspace] = [await geminiHome(), await tempDir()];
    await gemini(home, workspace, '/maker:idea-to-product a CLI that converts CSV to JSON');
    expect(chosen.length).toBeGreaterThan(0);
    // A split between candidates: the person's pick is not the first (what `--hitl auto` takes).
    expect(
      chosen.some((c) => !c.endsWith('=candidate-1')),
      chosen.join(', '),
    ).toBe(true);
    const run = Object.values((await state(workspace)).runs)[0];
    expect(run?.status).toBe('done');
    for (const entry of chosen) {
      const [questionId, pick] = entry.split('=');
      const question = run?.questions.find((q) => q.id === questionId);
      const node = run?.nodes[question?.nodeId ?? ''];
      expect(node?.leaf?.outcome?.status).toBe('human');
      // The committed tree is the chosen answer's first member's.
      const answer = tally(node?.leaf?.draws ?? []).find((c) => c.key === node?.leaf?.outcome?.key);
      const tree = git(workspace, 'rev-parse', `${node?.commit}^{tree}`);
      expect(tree).toBe(answer && candidateTree(answer.representative));
      // And it is the change shown under the option the person picked, not another one's.
      const shown = question?.options.map((o) => o.detail);
      const diff = ['diff-tree', '-p', '--binary', '-M', `${node?.commit}^`, tree];
      const committed = clip(execFileSync('git', diff, { cwd: workspace, encoding: 'utf8' }), 3000);
      const picked = question?.options.find((o) => o.id === pick);
      expect(picked?.detail).toBe(committed);
      expect(shown?.filter((d) => d === committed)).toHaveLength(1);
    }
  }, 180_000);

  it('a veto of the final result leaves the default branch untouched', async () => {
    fake = await startFakeGemini(
      assistant({ first: start(), answer: (q) => (q.kind === 'veto' ? 'veto' : 'opt-1') }),
    );
    const [home, workspace] = [await geminiHome(), await tempDir()];
    git(workspace, 'init', '--initial-branch=main');
    git(
      workspace,
      '-c',
      'user.name=t',
      '-c',
      'user.email=t@t',
      'commit',
      '--allow-empty',
      '-m',
      'start',
    );
    const before = git(workspace, 'rev-parse', 'main');
    const events = await gemini(
      home,
      workspace,
      '/maker idea-to-product "a CLI that converts CSV to JSON"',
    );
    expect(String(events.filter((e) => e['type'] === 'message').at(-1)?.['content'])).toMatch(
      /vetoed/,
    );
    expect(git(workspace, 'rev-parse', 'main')).toBe(before);
    const run = Object.values((await state(workspace)).runs)[0];
    expect(run?.status).toBe('vetoed');
    expect(git(workspace, 'rev-parse', '--verify', `${run?.result?.rootBranch}`)).toBe(
      run?.result?.finalCommit,
    );
  }, 180_000);

  it('installs from the npm run package archive (no npm install) and runs from there', async () => {
    execFileSync(process.execPath, ['scripts/package.mjs'], { stdio: 'ignore' });
    const unpacked = await tempDir();
    execFileSync('tar', ['-xzf', 'release/maker-extension.tar.gz', '-C', unpacked]);
    const home = await settingsHome();
    await run(GEMINI, ['extensions', 'install', unpacked, '--consent', '--skip-settings'], {
      env: { ...GEMINI_ENV, GEMINI_CLI_HOME: home },
      timeout: 60_000,
    });
    expect(existsSync(join(home, '.gemini', 'extensions', 'maker', 'dist', 'maker-mcp.js'))).toBe(
      true,
    );
    expect(existsSync(join(home, '.gemini', 'extensions', 'maker', 'node_modules'))).toBe(false);
    fake = await startFakeGemini(
      assistant({ first: start({ clarify: false }), answer: () => 'accept' }),
    );
    const workspace = await tempDir();
    await gemini(home, workspace, '/maker:idea-to-product a CLI that converts CSV to JSON');
    expect(Object.values((await state(workspace)).runs)[0]?.status).toBe('done');
  }, 180_000);

  it('after the MCP server is killed mid-run, /maker resume finishes the run', async () => {
    const workspace = await tempDir();
    let killed = false;
    fake = await startFakeGemini(
      assistant({
        first: start(),
        answer: (q) => (q.kind === 'clarify' ? 'opt-1' : 'accept'),
        after: (fn, text) => {
          // Mid-run (the run waits on its clarify question): kill -9 the server holding the workspace.
          if (killed || !fn.endsWith('maker_wait') || pendingIn(text).length === 0)
            return undefined;
          killed = true;
          // The lock file names its owner (JSON with the pid, start time and boot id).
          const owner = JSON.parse(
            readFileSync(join(workspace, 'maker-state.json.lock'), 'utf8'),
          ) as { pid: number };
          process.kill(owner.pid, 'SIGKILL');
          return { text: 'The MAKER server stopped.' };
        },
      }),
    );
    const home = await geminiHome();
    await gemini(home, workspace, '/maker idea-to-product "a CLI that converts CSV to JSON"');
    expect(killed).toBe(true);
    expect(Object.values((await state(workspace)).runs)[0]?.status).toBe('running');
    const resumedFake = fake;
    await resumedFake.close();
    fake = await startFakeGemini(
      assistant({
        first: () => ({ text: '', functionCalls: [{ name: 'mcp_maker_maker_resume', args: {} }] }),
        answer: (q) => (q.kind === 'clarify' ? 'opt-1' : 'accept'),
      }),
    );
    const events = await gemini(home, workspace, '/maker resume');
    expect(toolCalls(events)[0]).toBe('mcp_maker_maker_resume');
    const run = Object.values((await state(workspace)).runs)[0];
    expect(run?.status).toBe('done');
    expect(run?.result?.landed).toBe(true);
  }, 240_000);
});
