import { existsSync } from 'node:fs';
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { GeminiCliModel } from '../../src/adapters/gemini-cli/gemini-cli-model.js';
import { RetryingModel } from '../../src/adapters/gemini/retrying-model.js';
import { DEFAULT_MODEL_WAITS, type ModelWaits } from '../../src/core/deadlines.js';
import { QuotaSpentError, RateLimitedError } from '../../src/core/model-errors.js';
import { startFakeCodeAssist, type FakeCodeAssist } from '../../src/offline/fake-code-assist.js';
import { startFakeGemini, type FakeGemini } from '../../src/offline/fake-gemini.js';
import {
  apiDailyQuota,
  apiMinuteQuota,
  codeAssistDailyQuota,
  codeAssistMinuteQuota,
} from '../../src/offline/quota-replies.js';
import { maker } from '../helpers/cli.js';
import { processesNaming, until } from '../helpers/processes.js';
import { useTempDirs } from '../helpers/tmp.js';
import { geminiBinary } from './gemini-binary.js';
import {
  CONTEXT_CANARY,
  answer,
  filesUnder,
  person,
  signedInEnv,
  stateOf,
  toolsBin,
} from './signed-in.js';
import { promptRole } from '../helpers/prompts.js';

/**
 * The failures a person signed in to Gemini CLI meets, with the real `gemini` (npm
 * @google/gemini-cli, installed into a cache) against the fake Code Assist (and, for a key's 429s,
 * the fake Gemini API): a spent daily quota, a per-minute limit, a sign-in that needs a login, a
 * `gemini` that hangs at start-up and an answer that stops mid-stream. Each ends within 30 s (the
 * stalled answer: three tries of its silence limit) with a message naming the cause and the next
 * step (a per-minute limit is waited out instead), leaves
 * a run `maker resume` continues (or, before a run, nothing at all), and no process behind; the
 * person's own Gemini CLI set-up (its GEMINI.md, hooks, ~/.gemini) never touches MAKER's calls.
 * Deadlines are set short (MAKER_…_S) so each takes seconds.
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

const tempDir = useTempDirs();
let fake: FakeCodeAssist | undefined;
let api: FakeGemini | undefined;
afterEach(async () => {
  await fake?.close();
  await api?.close();
  fake = undefined;
  api = undefined;
});

/** Short waits: start-up generous for a loaded machine, silence short. */
const WAITS = { MAKER_GEMINI_START_S: '60', MAKER_MODEL_SILENCE_S: '3' };
const RUN = ['--worker', 'gemini', '--model-access', 'gemini-cli', '--hitl', 'auto', '--no-checks'];
/**
 * A run made small where its size is not what a test proves: one level deep (the leaves are not
 * asked whether they are minimal) and one candidate per subtask (k = 1): 8 model calls, not 26,
 * each one a prompt the real gemini handles.
 */
const SMALL = ['--max-depth', '1', '--k', '1'];

/** The run's set-up: a signed-in person, maker's temporary directory, the fake Code Assist. */
async function setUp(
  respond: Parameters<typeof startFakeCodeAssist>[0],
  options: Parameters<typeof startFakeCodeAssist>[1] = {},
) {
  fake = await startFakeCodeAssist(respond, options);
  const who = await person(await tempDir());
  const tmp = await tempDir();
  const env = signedInEnv({
    gemini: GEMINI,
    tools: await toolsBin(await tempDir()),
    person: who,
    fake,
    tmp,
    waits: WAITS,
  });
  const before = filesUnder(join(who.home, '.gemini'));
  return { who, tmp, env, before, dir: join(await tempDir(), 'repo') };
}

/** After a run: no process of it left, no private directory, the person's set-up untouched. */
async function expectClean(s: Awaited<ReturnType<typeof setUp>>): Promise<void> {
  expect(
    await until(() => processesNaming(s.tmp).length === 0, 3000),
    `left: ${processesNaming(s.tmp).join(', ')}`,
  ).toBe(true);
  expect(
    await until(() => filesUnder(s.tmp).length === 0, 6000),
    filesUnder(s.tmp).join(', '),
  ).toBe(true);
  expect(filesUnder(join(s.who.home, '.gemini'))).toEqual(s.before);
  expect(existsSync(s.who.hookMarks)).toBe(false);
  for (const r of fake?.requests ?? [])
    expect(JSON.stringify(r.body)).not.toContain(CONTEXT_CANARY);
  // Nothing left 127.0.0.1: what Gemini CLI reached for elsewhere was refused at the proxy.
  expect(fake?.refused.every((h) => !h.startsWith('127.0.0.1'))).toBe(true);
}

describe.skipIf('skip' in binary)(
  'a signed-in person’s failures, with the real gemini',
  { timeout: 300_000 },
  () => {
    it('a spent daily quota (Code Assist) stops the run within 30 s with its reset and `maker resume`; resumed, the run finishes, thinking counted, the person’s GEMINI.md, hooks and ~/.gemini untouched', async () => {
      let spent = true;
      let spentAt: number | undefined;
      /** Answers given once the quota is back (the resumed run's calls, every one recorded). */
      let answered = 0;
      const s = await setUp((request, index) => {
        if (request.method === 'streamGenerateContent' && index >= 3 && spent) {
          spentAt ??= Date.now();
          return codeAssistDailyQuota(17 * 3600 + 1800);
        }
        if (request.method === 'streamGenerateContent' && !spent) answered += 1;
        return answer(request, index);
      });
      const stopped = await maker(
        ['run', 'a CLI that converts CSV to JSON', '--dir', s.dir, ...RUN, ...SMALL],
        s.env,
      );
      expect(spentAt).toBeDefined();
      expect(Date.now() - (spentAt ?? 0)).toBeLessThan(30_000);
      expect(`${stopped.stdout}${stopped.stderr}`).toMatch(
        /Gemini CLI's daily quota is spent[\s\S]*resets in 18 h \(at [^)]+\); run `maker resume` then/,
      );
      expect(Object.values((await stateOf(s.dir)).runs)[0]?.status).toBe('failed');
      await expectClean(s);
      spent = false;
      const resumed = await maker(['resume', '--dir', s.dir, '--hitl', 'auto', '--json'], s.env);
      expect(resumed.code, resumed.stderr).toBe(0);
      expect(Object.values((await stateOf(s.dir)).runs)[0]?.status).toBe('done');
      const summary = JSON.parse(resumed.stdout) as {
        modelCalls: number;
        tokens: number;
        dailyRequests: unknown;
      };
      expect(answered).toBeGreaterThan(0);
      expect(
        fake?.requests.some((r) => promptRole(r) === 'minimal'),
        'MAKER’s own prompts reached the model',
      ).toBe(true);
      // Each answer's 25 thinking tokens are in the run's count; requests, not dollars, are shown.
      expect(summary.tokens).toBeGreaterThanOrEqual(answered * 25);
      expect(summary.dailyRequests).toEqual({ requests: summary.modelCalls, limit: 1000 });
      await expectClean(s);
    });

    it('an answer that stops mid-stream is ended by the silence watchdog, retried, then the run stops naming it and how to resume it', async () => {
      let stalledAt: number | undefined;
      const s = await setUp((request, index) => {
        if (request.method === 'streamGenerateContent' && promptRole(request) === 'split') {
          stalledAt ??= Date.now();
          return { text: 'a long answer that never ends', stallMidway: true };
        }
        return answer(request, index);
      });
      const stopped = await maker(
        ['run', 'a CLI that converts CSV to JSON', '--dir', s.dir, ...RUN],
        s.env,
      );
      expect(stalledAt).toBeDefined();
      // Three tries, each 3 s of silence (checked every 0.75 s), 2 s and 4 s between them, and a
      // fresh gemini for each retry (one that does not settle a cancelled prompt within 2 s is
      // ended): about 28 s on an idle machine, 43 s seen on a loaded one, so 60 s here.
      expect(Date.now() - (stalledAt ?? 0)).toBeLessThan(60_000);
      expect(`${stopped.stdout}${stopped.stderr}`).toMatch(
        /the answer stopped: nothing for \d+ s[\s\S]*tried 3 times[\s\S]*maker resume/,
      );
      // Each retry was said as it began, not only in the end.
      expect(stopped.stderr).toMatch(
        /waiting for gemini-cli until [^:]+:[^:]+:\d+ UTC: Gemini CLI's model call failed: the answer stopped: nothing for 3 s; retrying in 2 s \(try 2 of 3\)[\s\S]*retrying in 4 s \(try 3 of 3\)/,
      );
      expect(Object.values((await stateOf(s.dir)).runs)[0]?.status).toBe('failed');
      await expectClean(s);
    });

    it('a gemini that hangs at start-up (its sign-in never answers): refused within the start-up deadline, nothing created', async () => {
      const s = await setUp(answer, { load: 'hang' });
      const started = Date.now();
      const refused = await maker(['run', 'a CLI', '--dir', s.dir, ...RUN], {
        ...s.env,
        MAKER_GEMINI_START_S: '8',
      });
      expect(Date.now() - started).toBeLessThan(30_000);
      expect(refused.code).toBe(2);
      expect(refused.stderr).toMatch(
        /Gemini CLI did not finish signing in within 8 s[\s\S]*Nothing was created or changed/,
      );
      expect(existsSync(s.dir)).toBe(false);
      await expectClean(s);
    });

    it('a sign-in that needs a login (none, or one that cannot be verified): refused within seconds with the step to take, nothing created', async () => {
      const s = await setUp(answer);
      // Signed out: no token in the environment; Login with Google chosen in their settings.
      const signedOut = Object.fromEntries(
        Object.entries(s.env).filter(
          ([name]) => name !== 'GOOGLE_GENAI_USE_GCA' && name !== 'GOOGLE_CLOUD_ACCESS_TOKEN',
        ),
      );
      for (const creds of [
        undefined,
        '{"access_token":"ya29.unverifiable","expiry_date":9999999999999}',
      ]) {
        if (creds !== undefined)
          await writeFile(join(s.who.home, '.gemini', 'oauth_creds.json'), creds);
        const started = Date.now();
        const refused = await maker(['run', 'a CLI', '--dir', s.dir, ...RUN], signedOut);
        expect(Date.now() - started).toBeLessThan(30_000);
        expect(refused.code).toBe(2);
        expect(refused.stderr).toMatch(
          /Gemini CLI is not signed in: run `gemini` once in a terminal and choose Login with Google[\s\S]*Nothing was created or changed/,
        );
        expect(existsSync(s.dir)).toBe(false);
      }
      expect(await until(() => processesNaming(s.tmp).length === 0, 3000)).toBe(true);
      expect(existsSync(s.who.hookMarks)).toBe(false);
    });

    it('a key’s 429s through gemini (the Gemini API’s shapes): a per-minute one is waited out, said; a daily one stops the run', async () => {
      let limited = 0;
      let spentAt: number | undefined;
      api = await startFakeGemini((request, index) => {
        if (request.method === 'generateContent')
          return { text: JSON.stringify({ next_speaker: 'user', reasoning: 'done' }) };
        if (index === 2 && limited === 0) {
          limited += 1;
          return apiMinuteQuota(6);
        }
        if (index >= 8) {
          spentAt ??= Date.now();
          return apiDailyQuota(20 * 3600);
        }
        return answer(request, index);
      });
      const who = await person(await tempDir(), 'gemini-api-key');
      const tmp = await tempDir();
      const dir = join(await tempDir(), 'repo');
      const result = await maker(['run', 'a CLI that converts CSV to JSON', '--dir', dir, ...RUN], {
        PATH: [join(GEMINI, '..'), await toolsBin(await tempDir())].join(':'),
        HOME: who.home,
        TMPDIR: tmp,
        GEMINI_API_KEY: 'fake-key-for-the-binary-0123456789',
        GOOGLE_GEMINI_BASE_URL: api.baseUrl,
        ...WAITS,
      });
      expect(result.stderr).toMatch(/rate limited, retrying in 7 s/);
      expect(Date.now() - (spentAt ?? 0)).toBeLessThan(30_000);
      expect(`${result.stdout}${result.stderr}`).toMatch(
        /Gemini CLI's daily quota is spent \(You have exhausted your daily quota on this model\)[\s\S]*run `maker resume` then/,
      );
      expect(Object.values((await stateOf(dir)).runs)[0]?.status).toBe('failed');
      expect(await until(() => processesNaming(tmp).length === 0, 3000)).toBe(true);
    });

    it('Code Assist’s per-minute 429 reaches MAKER as a limit to wait out, not a daily stop', async () => {
      fake = await startFakeCodeAssist(() => codeAssistMinuteQuota(20));
      const who = await person(await tempDir());
      const tmp = await tempDir();
      const env = signedInEnv({
        gemini: GEMINI,
        tools: await toolsBin(await tempDir()),
        person: who,
        fake,
        tmp,
      });
      const model = new GeminiCliModel({
        command: GEMINI,
        model: 'gemini-2.5-flash',
        env: { ...env, PATH: `${env['PATH'] ?? ''}:${process.env['PATH'] ?? ''}` },
      });
      try {
        await expect(model.generate({ prompt: 'hello', temperature: 0 })).rejects.toBeInstanceOf(
          RateLimitedError,
        );
      } finally {
        await model.close();
      }
      expect(fake.requests.filter((r) => r.method === 'streamGenerateContent')).toHaveLength(1);
    });
  },
);

/**
 * Headless mode (one `gemini -p` process per call, as for a `gemini` without ACP mode): its own
 * start-up deadline and its reading of a daily quota, with the real binary, through the retries a
 * run makes; each ends with its message, and no process or private directory of it is left.
 */
describe.skipIf('skip' in binary)(
  'a signed-in person’s failures in headless mode, with the real gemini',
  { timeout: 120_000 },
  () => {
    /** A run's model over headless calls (the retries included), and the set-up it runs in. */
    async function headless(
      respond: Parameters<typeof startFakeCodeAssist>[0],
      options: Parameters<typeof startFakeCodeAssist>[1] = {},
      waits: ModelWaits = DEFAULT_MODEL_WAITS,
    ) {
      const s = await setUp(respond, options);
      const inner = new GeminiCliModel({
        command: GEMINI,
        model: 'gemini-2.5-flash',
        env: { ...s.env, PATH: `${s.env['PATH'] ?? ''}:${process.env['PATH'] ?? ''}` },
        mode: 'headless',
        waits,
      });
      return { s, model: new RetryingModel(inner, { service: 'gemini-cli', waits }) };
    }

    it('a hang at start-up (its sign-in never answers): stopped at the start-up deadline, not retried, naming the next step; no process left', async () => {
      // Room for a loaded machine's gemini to reach its sign-in (about 7 s seen), where it hangs.
      const { s, model } = await headless(
        answer,
        { load: 'hang' },
        { ...DEFAULT_MODEL_WAITS, startupMs: 10_000 },
      );
      const started = Date.now();
      try {
        const failed = model.generate({ prompt: 'Is this task minimal?', temperature: 0 });
        await expect(failed).rejects.toMatchObject({ isRetryable: false });
        await expect(failed).rejects.toThrow(
          /Gemini CLI did not start within 10 s[\s\S]*Check that `gemini` answers in a terminal, then run `maker resume`/,
        );
        // One try, ended at its deadline (not three, nor a wait on the sign-in's own timeouts).
        expect(Date.now() - started).toBeLessThan(18_000);
        expect(fake?.calls.filter((c) => c === 'loadCodeAssist')).toHaveLength(1);
      } finally {
        await model.close();
      }
      await expectClean(s);
    });

    it('a spent daily quota (Code Assist’s 429): stopped at once with its reset and `maker resume`, gemini not left waiting it out; no process left', async () => {
      let spentAt: number | undefined;
      const { s, model } = await headless((request, index) => {
        if (request.method === 'streamGenerateContent') {
          spentAt ??= Date.now();
          return codeAssistDailyQuota(17 * 3600 + 1800);
        }
        return answer(request, index);
      });
      try {
        const failed = model.generate({ prompt: 'Is this task minimal?', temperature: 0 });
        await expect(failed).rejects.toBeInstanceOf(QuotaSpentError);
        await expect(failed).rejects.toThrow(
          /Gemini CLI's daily quota is spent[\s\S]*resets in 18 h \(at [^)]+\); run `maker resume` then/,
        );
        expect(Date.now() - (spentAt ?? 0)).toBeLessThan(30_000);
        expect(fake?.requests.filter((r) => r.method === 'streamGenerateContent')).toHaveLength(1);
      } finally {
        await model.close();
      }
      await expectClean(s);
    });
  },
);
