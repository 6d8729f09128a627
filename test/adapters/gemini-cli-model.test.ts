import { lstat, readFile, readdir, readlink } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { GeminiCliModel, probeGeminiCli } from '../../src/adapters/gemini-cli/gemini-cli-model.js';
import type { ModelWaits } from '../../src/core/deadlines.js';
import { AbortedError, ConfigError } from '../../src/core/errors.js';
import {
  ModelTransportError,
  QuotaSpentError,
  RateLimitedError,
} from '../../src/core/model-errors.js';
import { alive, stubGemini, untilLogged, type StubEntry } from '../helpers/stub-gemini.js';
import { useTempDirs } from '../helpers/tmp.js';

const tempDir = useTempDirs();
const models: GeminiCliModel[] = [];
afterEach(async () => {
  await Promise.all(models.splice(0).map((m) => m.close()));
});

/** Short waits, so a failure shows in a second or two. */
const QUICK: ModelWaits = {
  startupMs: 4000,
  firstByteMs: 1500,
  tokensPerSecond: 1e6,
  silenceMs: 800,
};

function model(
  command: string,
  extra: Partial<ConstructorParameters<typeof GeminiCliModel>[0]> = {},
) {
  const made = new GeminiCliModel({
    command,
    model: 'gemini-2.5-flash',
    env: { PATH: process.env['PATH'], HOME: '/nonexistent-home' },
    ...extra,
  });
  models.push(made);
  return made;
}

const prompts = (log: StubEntry[]) => log.filter((e) => e.in?.method === 'session/prompt');
const starts = (log: StubEntry[]) => log.flatMap((e) => (e.start === undefined ? [] : [e.start]));

describe('GeminiCliModel over ACP', () => {
  it('starts one gemini --acp child with a concrete model, no extensions, a deny-all policy, MAKER’s system prompt and a private home; concurrent calls get separate sessions', async () => {
    const stub = await stubGemini(await tempDir(), { hold: true });
    const m = model(stub.path);
    const calls = [
      m.generate({ system: 'You plan.', prompt: 'first', temperature: 0 }),
      m.generate({ prompt: 'second', temperature: 0, json: { schema: { type: 'object' } } }),
    ];
    await untilLogged(stub, (log) => prompts(log).length === 2);
    await stub.release();
    const [a, b] = await Promise.all(calls);
    const log = await stub.log();
    // One child for both calls, each in its own session.
    expect(starts(log)).toHaveLength(1);
    const sessions = prompts(log).map((e) => e.in?.params?.['sessionId']);
    expect(new Set(sessions).size).toBe(2);
    expect([a?.text, b?.text].sort()).toEqual(
      sessions.map((s) => `answer from ${String(s)}`).sort(),
    );
    // The tokens Gemini CLI recorded, thinking included (ACP's own counts leave it out).
    expect(a).toMatchObject({
      finishReason: 'stop',
      inputTokens: 12,
      outputTokens: 5,
      thoughtTokens: 7,
    });
    // The prompt carries the role's instructions and, for JSON, the schema in words.
    const texts = prompts(log).map(
      (e) => (e.in?.params?.['prompt'] as { text: string }[])[0]?.text ?? '',
    );
    expect(texts.find((t) => t.includes('first'))).toContain('You plan.');
    expect(texts.find((t) => t.includes('second'))).toContain(
      'Answer with only a JSON value matching this JSON schema: {"type":"object"}',
    );
    const start = starts(log)[0]!;
    expect(start.args).toEqual(expect.arrayContaining(['--acp', '-e', 'none', '--skip-trust']));
    expect(start.args[start.args.indexOf('-m') + 1]).toBe('gemini-2.5-flash');
    expect(start.args[start.args.indexOf('--approval-mode') + 1]).toBe('default');
    const policy = await readFile(start.args[start.args.indexOf('--policy') + 1]!, 'utf8');
    expect(policy).toMatch(/toolName = "\*"\s+decision = "deny"/);
    expect(await readFile(start.env['GEMINI_SYSTEM_MD']!, 'utf8')).toMatch(
      /language model inside MAKER/,
    );
    expect(start.env).toMatchObject({
      GEMINI_CLI_TRUST_WORKSPACE: 'true',
      NO_BROWSER: 'true',
      GEMINI_CLI_NO_RELAUNCH: 'true',
    });
    // Its home is MAKER's private one, its working directory private and empty.
    expect(start.env['GEMINI_CLI_HOME']).toMatch(/maker-gemini-cli-/);
    expect(start.env['TMPDIR']).toMatch(/maker-gemini-cli-/);
    expect(await readdir(start.cwd)).toEqual([]);
  });

  it('holds calls beyond the concurrency cap until one finishes', async () => {
    const stub = await stubGemini(await tempDir(), { hold: true });
    const m = model(stub.path, { concurrency: 2 });
    const calls = [1, 2, 3].map((i) => m.generate({ prompt: `call ${i}`, temperature: 0 }));
    await untilLogged(stub, (log) => prompts(log).length === 2);
    await stub.release();
    await Promise.all(calls);
    const log = await stub.log();
    expect(prompts(log)).toHaveLength(3);
    expect(Math.max(...log.map((e) => e.inFlight ?? 0))).toBe(2);
  });

  it('a cancelled call cancels its prompt in the child (session/cancel) and rejects as aborted', async () => {
    const stub = await stubGemini(await tempDir(), { hold: true });
    const m = model(stub.path);
    const control = new AbortController();
    const call = m.generate({ prompt: 'slow', temperature: 0, signal: control.signal });
    const log = await untilLogged(stub, (l) => prompts(l).length === 1);
    control.abort(new Error('run cancelled'));
    await expect(call).rejects.toBeInstanceOf(AbortedError);
    const sessionId = prompts(log)[0]?.in?.params?.['sessionId'];
    const after = await untilLogged(stub, (l) => l.some((e) => e.in?.method === 'session/cancel'));
    expect(after.find((e) => e.in?.method === 'session/cancel')?.in?.params).toEqual({ sessionId });
  });

  it('a child that exits 41 gives the sign-in message', async () => {
    const stub = await stubGemini(await tempDir(), { exit: 41 });
    await expect(model(stub.path).generate({ prompt: 'x', temperature: 0 })).rejects.toThrow(
      /run `gemini` once in a terminal and choose Login with Google/,
    );
  });

  it('a child that asks for a login is ended at once: the sign-in message, long before any deadline', async () => {
    const stub = await stubGemini(await tempDir(), { login: true });
    const started = Date.now();
    const failed = model(stub.path, { waits: { ...QUICK, startupMs: 60_000 } }).generate({
      prompt: 'x',
      temperature: 0,
    });
    await expect(failed).rejects.toBeInstanceOf(ConfigError);
    await expect(failed).rejects.toThrow(/not signed in[\s\S]*asked for a login/);
    expect(Date.now() - started).toBeLessThan(20_000);
    const pid = starts(await stub.log())[0]!.pid;
    await until(() => !alive(pid));
  });

  it('a refused sign-in at session/new gives the sign-in message', async () => {
    const stub = await stubGemini(await tempDir(), { authError: true });
    await expect(model(stub.path).generate({ prompt: 'x', temperature: 0 })).rejects.toThrow(
      /run `gemini` once in a terminal/,
    );
  });

  it('a child that never starts fails within the start-up deadline, naming it, and is ended', async () => {
    const stub = await stubGemini(await tempDir(), { hang: true });
    const started = Date.now();
    const failed = model(stub.path, { waits: { ...QUICK, startupMs: 1500 } }).generate({
      prompt: 'x',
      temperature: 0,
    });
    await expect(failed).rejects.toThrow(/did not start within 2 s[\s\S]*maker resume/);
    expect(Date.now() - started).toBeLessThan(15_000);
    const pid = starts(await stub.log())[0]!.pid;
    await until(() => !alive(pid));
  });

  it('an answer that stops mid-way is a transport failure once silent for the silence limit', async () => {
    const stub = await stubGemini(await tempDir(), { stall: true });
    const failed = model(stub.path, { waits: QUICK }).generate({ prompt: 'x', temperature: 0 });
    await expect(failed).rejects.toBeInstanceOf(ModelTransportError);
    await expect(failed).rejects.toThrow(/the answer stopped: nothing for 1 s/);
    await expect(failed).rejects.toMatchObject({ isRetryable: true });
  });

  it('a model that says nothing at all (not even its thinking, which ACP streams) is a transport failure after the silence limit, long before its first-byte allowance', async () => {
    const stub = await stubGemini(await tempDir(), { hold: true });
    const started = Date.now();
    const failed = model(stub.path, { waits: { ...QUICK, firstByteMs: 120_000 } }).generate({
      prompt: 'x',
      temperature: 0,
    });
    await expect(failed).rejects.toBeInstanceOf(ModelTransportError);
    await expect(failed).rejects.toThrow(/the model said nothing for 1 s/);
    expect(Date.now() - started).toBeLessThan(15_000);
    await untilLogged(stub, (l) => l.some((e) => e.in?.method === 'session/cancel'));
  }, 30_000);

  it('a silent prompt that settles when cancelled leaves its child running: the next call uses it', async () => {
    // Proves: a child is ended only when a cancelled prompt does not settle (it was ended after the
    // grace whatever the prompt did, failing every other call on it).
    const stub = await stubGemini(await tempDir(), { hold: true });
    const m = model(stub.path, { waits: QUICK });
    await expect(m.generate({ prompt: 'x', temperature: 0 })).rejects.toThrow(
      /the model said nothing/,
    );
    const [child] = m.pids;
    // Past the grace a cancel has (2 s): the child that settled it still runs.
    await new Promise((r) => setTimeout(r, 3000));
    expect(child !== undefined && alive(child)).toBe(true);
    await stub.release();
    await expect(m.generate({ prompt: 'y', temperature: 0 })).resolves.toMatchObject({
      finishReason: 'stop',
    });
    expect(starts(await stub.log())).toHaveLength(1);
  }, 30_000);

  it('a silent prompt that ignores its cancel ends its child; a call in flight on it fails naming why, a later one goes to a new child', async () => {
    // Proves: the call MAKER's own kill ends is told the cause (another call's silence), not a bare
    // signal, and fails as a transport failure, to be retried on a new child.
    const stub = await stubGemini(await tempDir(), { stallFirst: true });
    // A deadline far off: only the silence and the kill end calls here.
    const m = model(stub.path, { waits: { ...QUICK, firstByteMs: 120_000 } });
    const silent = m.generate({ prompt: 'first', temperature: 0 });
    await untilLogged(stub, (l) => prompts(l).length === 1);
    const thinking = m.generate({ prompt: 'second', temperature: 0 });
    await expect(silent).rejects.toThrow(/the answer stopped: nothing for/);
    // A call made while the cancel is unsettled goes to a new child, out of harm's way.
    const later = m.generate({ prompt: 'third', temperature: 0 });
    await expect(thinking).rejects.toBeInstanceOf(ModelTransportError);
    await expect(thinking).rejects.toThrow(
      /ended mid-call by MAKER: another call on it went unanswered \(the answer stopped: nothing for 1 s\) and did not stop when cancelled/,
    );
    await expect(thinking).rejects.toMatchObject({ isRetryable: true });
    await stub.release();
    await expect(later).resolves.toMatchObject({ finishReason: 'stop' });
    const [first, second] = starts(await stub.log());
    expect(second?.pid).toBeDefined();
    expect(first !== undefined && alive(first.pid)).toBe(false);
    expect(second !== undefined && alive(second.pid)).toBe(true);
  }, 30_000);

  it('a prompt past its deadline (from its size) is a transport failure, and its session is cancelled', async () => {
    const stub = await stubGemini(await tempDir(), { hold: true });
    const failed = model(stub.path, {
      waits: { ...QUICK, firstByteMs: 300, tokensPerSecond: 1000, silenceMs: 60_000 },
    }).generate({ prompt: 'x', temperature: 0, maxOutputTokens: 500, thinkingBudget: 0 });
    await expect(failed).rejects.toThrow(/no complete answer within 1 s \(the deadline/);
    await untilLogged(stub, (l) => l.some((e) => e.in?.method === 'session/cancel'));
  });

  it('a per-minute 429 is a rate limit to wait out; a daily one stops with its reset', async () => {
    const minute = await stubGemini(await tempDir(), {
      promptError: { code: 429, message: 'Rate limit exceeded. Try again later.' },
    });
    const limited = model(minute.path).generate({ prompt: 'x', temperature: 0 });
    await expect(limited).rejects.toBeInstanceOf(RateLimitedError);
    await expect(limited).rejects.toMatchObject({ retryAfterMs: 60_000, isRetryable: true });
    const daily = await stubGemini(await tempDir(), {
      promptError: {
        code: 429,
        message:
          'You have exhausted your capacity on this model. Your quota will reset after 17h2m5s.',
      },
    });
    const spent = model(daily.path).generate({ prompt: 'x', temperature: 0 });
    await expect(spent).rejects.toBeInstanceOf(QuotaSpentError);
    await expect(spent).rejects.toThrow(
      /daily quota is spent[\s\S]*resets in 17 h[\s\S]*maker resume/,
    );
    await expect(spent).rejects.toMatchObject({ isRetryable: false, resetMs: 61_325_000 });
  });

  it('close ends every child with its whole process group (what it started too) at once, and removes the private directory', async () => {
    const stub = await stubGemini(await tempDir(), { hold: true, grandchild: true });
    const m = model(stub.path);
    const call = m.generate({ prompt: 'x', temperature: 0 });
    const log = await untilLogged(
      stub,
      (l) => prompts(l).length === 1 && l.some((e) => e.grandchild !== undefined),
    );
    const pids = [starts(log)[0]!.pid, log.find((e) => e.grandchild !== undefined)!.grandchild!];
    const home = starts(log)[0]!.env['GEMINI_CLI_HOME']!;
    const closing = Date.now();
    await m.close();
    expect(Date.now() - closing).toBeLessThan(1000);
    await expect(call).rejects.toBeInstanceOf(AbortedError);
    await until(() => pids.every((pid) => !alive(pid)));
    await expect(lstat(home)).rejects.toThrow(/ENOENT/);
  });
});

describe('MAKER’s private Gemini CLI home', () => {
  it('carries only the sign-in: the person’s auth choice, links to their sign-in files that exist, MAKER’s settings over everything else', async () => {
    const person = await tempDir();
    const { mkdir, writeFile } = await import('node:fs/promises');
    await mkdir(join(person, '.gemini'));
    await writeFile(
      join(person, '.gemini', 'settings.json'),
      `// the person's settings\n{"security": {"auth": {"selectedType": "oauth-personal"}}, "hooks": {"BeforeModel": []}, "context": {"fileName": "MINE.md"}, "general": {"maxAttempts": 7}}`,
    );
    await writeFile(join(person, '.gemini', 'oauth_creds.json'), '{"never":"read"}');
    const stub = await stubGemini(await tempDir(), { hold: true });
    const m = model(stub.path, { env: { PATH: process.env['PATH'], HOME: person } });
    const call = m.generate({ prompt: 'x', temperature: 0 });
    const log = await untilLogged(stub, (l) => prompts(l).length === 1);
    const home = join(starts(log)[0]!.env['GEMINI_CLI_HOME']!, '.gemini');
    const settings = JSON.parse(await readFile(join(home, 'settings.json'), 'utf8')) as Record<
      string,
      unknown
    >;
    expect(settings).toMatchObject({
      security: { auth: { selectedType: 'oauth-personal' } },
      general: { maxAttempts: 1 },
      hooksConfig: { enabled: false },
      context: { fileName: 'MAKER-HAS-NO-CONTEXT-FILE.md' },
    });
    expect(settings).not.toHaveProperty('hooks');
    expect(await readlink(join(home, 'oauth_creds.json'))).toBe(
      join(person, '.gemini', 'oauth_creds.json'),
    );
    // No link to a file the person does not have: Gemini CLI would create it in their directory.
    await expect(lstat(join(home, 'installation_id'))).rejects.toThrow(/ENOENT/);
    await stub.release();
    await call;
    expect((await readdir(join(person, '.gemini'))).sort()).toEqual([
      'oauth_creds.json',
      'settings.json',
    ]);
  });
});

describe('GeminiCliModel’s child', () => {
  it('gets the person’s Gemini sign-in variables but none of MAKER’s GitHub or Jules credentials', async () => {
    const stub = await stubGemini(await tempDir());
    const m = model(stub.path, {
      env: {
        PATH: process.env['PATH'],
        HOME: '/nonexistent-home',
        GEMINI_API_KEY: 'AIza-for-gemini',
        GOOGLE_CLOUD_PROJECT: 'proj',
        GITHUB_TOKEN: 'ghp_not_for_gemini',
        GH_TOKEN: 'gho_not_for_gemini',
        JULES_API_KEY: 'jules-not-for-gemini',
      },
    });
    await m.generate({ prompt: 'x', temperature: 0 });
    const names = starts(await stub.log())[0]?.names;
    expect(names).toEqual(expect.arrayContaining(['GEMINI_API_KEY', 'GOOGLE_CLOUD_PROJECT']));
    for (const name of ['GITHUB_TOKEN', 'GH_TOKEN', 'JULES_API_KEY'])
      expect(names, name).not.toContain(name);
  });
});

describe('GeminiCliModel headless', () => {
  it('without ACP, falls back to one gemini -p process per call, says so once, the request on stdin, tokens from Gemini CLI’s record', async () => {
    const stub = await stubGemini(await tempDir(), { noAcp: true });
    const notices: string[] = [];
    const m = model(stub.path, { onNotice: (t) => notices.push(t) });
    const result = await m.generate({
      system: 'You judge.',
      prompt: 'which is better?',
      temperature: 0,
    });
    expect(result).toEqual({
      text: 'headless answer',
      finishReason: 'stop',
      inputTokens: 7,
      outputTokens: 3,
      thoughtTokens: 2,
    });
    await m.generate({ prompt: 'again', temperature: 0 });
    expect(m.mode).toBe('headless');
    expect(notices).toHaveLength(1);
    expect(notices[0]).toMatch(
      /has no ACP mode[\s\S]*slower[\s\S]*npm install -g @google\/gemini-cli@latest/,
    );
    const log = await stub.log();
    const headless = starts(log).find((s) => s.args.includes('-p'))!;
    expect(headless.args).toEqual(expect.arrayContaining(['-o', 'stream-json', '-e', 'none']));
    expect(await readFile(headless.env['GEMINI_SYSTEM_MD']!, 'utf8')).toMatch(
      /language model inside MAKER[\s\S]*You judge\./,
    );
    expect(log.find((e) => e.in?.method === 'headless')?.in?.params?.['stdin']).toContain(
      'which is better?',
    );
  });

  it.each([
    [41, /choose Login with Google/],
    [53, /turn limit/],
    [1, /Gemini CLI failed \(exit 1\): boom/],
  ])('exit %i is a clear stop', async (exit, message) => {
    const stub = await stubGemini(await tempDir(), {
      noAcp: true,
      headlessError: { exit, message: 'boom' },
    });
    const m = model(stub.path, { mode: 'headless' });
    await expect(m.generate({ prompt: 'x', temperature: 0 })).rejects.toThrow(message);
  });

  it('a daily quota error stops the run with a resume hint', async () => {
    const stub = await stubGemini(await tempDir(), {
      headlessError: {
        exit: 1,
        message: '[API Error: You have exhausted your daily quota on this model.]',
      },
    });
    const failed = model(stub.path, { mode: 'headless' }).generate({ prompt: 'x', temperature: 0 });
    await expect(failed).rejects.toMatchObject({ status: 429, isRetryable: false });
    await expect(failed).rejects.toThrow(
      /daily quota is spent[\s\S]*resets within 24 hours[\s\S]*maker resume/,
    );
  });

  it('a headless gemini that never starts stops as the ACP one does: within the start-up deadline, not retried, naming the next step, its group ended', async () => {
    const stub = await stubGemini(await tempDir(), { hang: true, grandchild: true });
    const started = Date.now();
    const failed = model(stub.path, {
      mode: 'headless',
      waits: { ...QUICK, startupMs: 1500 },
    }).generate({
      prompt: 'x',
      temperature: 0,
    });
    await expect(failed).rejects.toMatchObject({ isRetryable: false });
    await expect(failed).rejects.toThrow(
      /did not start within 2 s[\s\S]*Check that `gemini` answers in a terminal, then run `maker resume`/,
    );
    expect(Date.now() - started).toBeLessThan(15_000);
    const log = await stub.log();
    const pids = [
      ...starts(log).map((s) => s.pid),
      ...log.flatMap((e) => (e.grandchild === undefined ? [] : [e.grandchild])),
    ];
    await until(() => pids.every((pid) => !alive(pid)));
    expect(pids.filter((pid) => alive(pid))).toEqual([]);
  });

  it('a headless answer that stops mid-way is ended once silent, with its process group', async () => {
    const stub = await stubGemini(await tempDir(), { stall: true, grandchild: true });
    const failed = model(stub.path, { mode: 'headless', waits: QUICK }).generate({
      prompt: 'x',
      temperature: 0,
    });
    await expect(failed).rejects.toThrow(/the answer stopped: nothing for/);
    const log = await stub.log();
    const pids = [
      ...starts(log).map((s) => s.pid),
      ...log.flatMap((e) => (e.grandchild === undefined ? [] : [e.grandchild])),
    ];
    await until(() => pids.every((pid) => !alive(pid)));
  });
});

describe('probeGeminiCli', () => {
  it('signed in: ACP mode, without a model request, the check blocked by MAKER’s policy', async () => {
    const stub = await stubGemini(await tempDir());
    expect(
      await probeGeminiCli({ command: stub.path, model: 'gemini-2.5-flash', env: {} }),
    ).toEqual({
      mode: 'acp',
      notes: [],
    });
    const log = await stub.log();
    const check = starts(log).find((s) => s.args.includes('-p'))!;
    expect(check.args[check.args.indexOf('-p') + 1]).toBe('/maker-sign-in-check');
    expect(check.env['NO_BROWSER']).toBe('true');
    expect(log.filter((e) => e.in?.method === 'session/prompt')).toEqual([]);
  });

  it('not signed in (exit 41) or asking for a login: the sign-in message with its next step', async () => {
    for (const fault of [{ exit: 41 }, { login: true }]) {
      const stub = await stubGemini(await tempDir(), fault);
      await expect(
        probeGeminiCli({ command: stub.path, model: 'gemini-2.5-flash', env: {} }),
      ).rejects.toThrow(/not signed in: run `gemini` once in a terminal/);
    }
  });

  it('a gemini too old for MAKER’s flags is refused with the upgrade to make; one without ACP is used headless, and said so', async () => {
    const old = await stubGemini(await tempDir(), { old: true });
    await expect(
      probeGeminiCli({ command: old.path, model: 'gemini-2.5-flash', env: {} }),
    ).rejects.toThrow(
      /too old for MAKER: it does not know --policy[\s\S]*npm install -g @google\/gemini-cli@latest/,
    );
    const noAcp = await stubGemini(await tempDir(), { noAcp: true });
    const probe = await probeGeminiCli({ command: noAcp.path, model: 'gemini-2.5-flash', env: {} });
    expect(probe.mode).toBe('headless');
    expect(probe.notes.join(' ')).toMatch(/no ACP mode/);
  });

  it('a gemini that hangs signing in fails within the start-up deadline, and is ended', async () => {
    const stub = await stubGemini(await tempDir(), { hang: true });
    const started = Date.now();
    await expect(
      probeGeminiCli({
        command: stub.path,
        model: 'gemini-2.5-flash',
        env: {},
        waits: { ...QUICK, startupMs: 1500 },
      }),
    ).rejects.toThrow(/did not finish signing in within 2 s/);
    expect(Date.now() - started).toBeLessThan(15_000);
    const pids = starts(await stub.log()).map((s) => s.pid);
    await until(() => pids.every((pid) => !alive(pid)));
  });

  it('a missing gemini says how to install it', async () => {
    await expect(
      probeGeminiCli({ command: join(await tempDir(), 'no-gemini'), model: 'm', env: {} }),
    ).rejects.toBeInstanceOf(ConfigError);
  });
});

async function until(test: () => boolean, ceilingMs = 5000): Promise<void> {
  const end = Date.now() + ceilingMs;
  while (!test()) {
    if (Date.now() > end) throw new Error('never happened');
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}
