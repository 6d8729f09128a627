import { readFile, readdir } from 'node:fs/promises';
import { afterEach, describe, expect, it } from 'vitest';
import { GeminiCliModel, probeGeminiCli } from '../../src/adapters/gemini-cli/gemini-cli-model.js';
import { AbortedError, ApiCallError, ConfigError } from '../../src/core/errors.js';
import { stubGemini, untilLogged, type StubEntry } from '../helpers/stub-gemini.js';
import { useTempDirs } from '../helpers/tmp.js';

const tempDir = useTempDirs();
const models: GeminiCliModel[] = [];
afterEach(async () => {
  await Promise.all(models.splice(0).map((m) => m.close()));
});

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
  it('starts one gemini --acp child with a concrete model, no extensions, a deny-all policy and MAKER’s system prompt; concurrent calls get separate sessions', async () => {
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
    expect(a).toMatchObject({ finishReason: 'stop', inputTokens: 12, outputTokens: 5 });
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
    expect(start.env['GEMINI_CLI_TRUST_WORKSPACE']).toBe('true');
    // Its working directory is private and empty: no project file reaches the model.
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

  it('a child that exits 41 gives the sign-in message (probe and call)', async () => {
    const stub = await stubGemini(await tempDir(), { exit: 41 });
    const probe = probeGeminiCli({ command: stub.path, model: 'gemini-2.5-flash', env: {} });
    await expect(probe).rejects.toBeInstanceOf(ConfigError);
    await expect(probe).rejects.toThrow(/run `gemini` once and choose Login with Google/);
    await expect(model(stub.path).generate({ prompt: 'x', temperature: 0 })).rejects.toThrow(
      /run `gemini` once and choose Login with Google/,
    );
  });

  it('a refused sign-in at session/new gives the sign-in message', async () => {
    const stub = await stubGemini(await tempDir(), { authError: true });
    await expect(
      probeGeminiCli({ command: stub.path, model: 'gemini-2.5-flash', env: {} }),
    ).rejects.toThrow(/run `gemini` once and choose Login with Google/);
  });

  it('a 429 stops at once with a resume hint, not retried', async () => {
    const stub = await stubGemini(await tempDir(), {
      promptError: { code: 429, message: 'Rate limit exceeded. Try again later.' },
    });
    const failed = model(stub.path).generate({ prompt: 'x', temperature: 0 });
    await expect(failed).rejects.toBeInstanceOf(ApiCallError);
    await expect(failed).rejects.toMatchObject({ status: 429, isRetryable: false });
    await expect(failed).rejects.toThrow(/maker resume/);
  });
});

describe('GeminiCliModel headless', () => {
  it('without ACP, falls back to one gemini -p process per call, the request on stdin, tokens from stats', async () => {
    const stub = await stubGemini(await tempDir(), { noAcp: true });
    const m = model(stub.path);
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
    expect(m.mode).toBe('headless');
    const log = await stub.log();
    const headless = starts(log).find((s) => s.args.includes('-p'))!;
    expect(headless.args).toEqual(expect.arrayContaining(['-o', 'json', '-e', 'none']));
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
      headlessError: { exit: 1, message: 'You have exhausted your daily quota on this model.' },
    });
    const failed = model(stub.path, { mode: 'headless' }).generate({ prompt: 'x', temperature: 0 });
    await expect(failed).rejects.toMatchObject({ status: 429, isRetryable: false });
    await expect(failed).rejects.toThrow(/daily limit[\s\S]*maker resume/);
  });
});
