import { execFile } from 'node:child_process';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterEach, describe, expect, it } from 'vitest';
import { CALIBRATION_SUITE } from '../../src/engine/calibration/suite.js';
import {
  startFakeGemini,
  type FakeGemini,
  type FakeGeminiReply,
  type FakeGeminiRequest,
} from '../../src/offline/fake-gemini.js';
import { useTempDirs } from '../helpers/tmp.js';
import { isTask, promptRole } from '../helpers/prompts.js';
import { maker } from '../helpers/cli.js';
import { machineSandbox } from '../helpers/settings.js';

const exec = promisify(execFile);
const tempDir = useTempDirs();
const sandbox = await machineSandbox();
let fake: FakeGemini | undefined;

afterEach(async () => {
  await fake?.close();
  fake = undefined;
});

interface Result {
  p: number;
  pLow: number;
  pHigh: number;
  v: number;
  vLow: number;
  vHigh: number;
  samples: number;
  validSamples: number;
  correctSamples: number;
  recommendedK: number | null;
  expectedSamplesPerSubtask: number | null;
  votes: { k: number; correct: number }[];
  measuredAt: string;
}

/**
 * A scripted Gemini with exact rates over all worker requests: every 20th answer is cut off (v =
 * 0.95), and every 5th valid one is the task's wrong solution (p = 0.8); reviews pass.
 */
function scriptedCoder(): (request: FakeGeminiRequest) => FakeGeminiReply {
  let worker = 0;
  let valid = 0;
  return (request) => {
    const p = request.prompt;
    if (promptRole(request) === 'review')
      return { text: JSON.stringify({ verdict: 'ok', confidence: 0.9, reason: 'fine' }) };
    const task = CALIBRATION_SUITE.find((t) => isTask(p, `${t.title}\n`));
    if (task === undefined || promptRole(request) !== 'worker')
      return { status: 400, message: `unexpected prompt: ${p.slice(0, 80)}` };
    const i = worker++;
    if (i % 20 === 19) return { text: '{"files": [{"path": "src/', finishReason: 'MAX_TOKENS' };
    const files = valid++ % 5 === 4 ? task.wrong : task.solution;
    return {
      text: JSON.stringify({
        files: Object.entries(files).map(([path, content]) => ({ path, content })),
        summary: task.title,
      }),
    };
  };
}

describe.runIf(sandbox !== undefined)('maker calibrate', { timeout: 180_000 }, () => {
  it('recovers a scripted p and v from the fake Gemini and advises the k maker estimate gives', async () => {
    fake = await startFakeGemini(scriptedCoder());
    const dir = await tempDir();
    const out = await maker(
      [
        'calibrate',
        '--model',
        'gemini-2.5-flash',
        '--tasks',
        '4',
        '--samples',
        '10',
        '--dir',
        dir,
        '--json',
      ],
      { GEMINI_API_KEY: 'test-key', GOOGLE_GEMINI_BASE_URL: fake.baseUrl },
    );
    expect(out.code, out.stderr).toBe(0);
    const r = JSON.parse(out.stdout) as Result;
    expect(r.samples).toBe(40);
    expect(r.validSamples).toBe(38);
    // 31 of 38 valid samples are right: the hidden tests ran and told right from wrong.
    expect(r.correctSamples).toBe(31);
    expect(r.pLow).toBeLessThanOrEqual(0.8);
    expect(r.pHigh).toBeGreaterThanOrEqual(0.8);
    expect(r.vLow).toBeLessThanOrEqual(0.95);
    expect(r.vHigh).toBeGreaterThanOrEqual(0.95);
    const estimate = await maker([
      'estimate',
      '--p',
      String(r.pLow),
      '--v',
      String(r.v),
      '--steps',
      '50',
      '--target',
      '0.95',
      '--json',
    ]);
    const e = JSON.parse(estimate.stdout) as { kMin: number; expectedDrawsPerStep: number };
    expect(r.recommendedK).toBe(e.kMin);
    expect(r.expectedSamplesPerSubtask).toBeCloseTo(e.expectedDrawsPerStep, 9);
    expect(r.votes.map((v) => v.k)).toEqual([1, 2, 3, 4, 5]);
    const saved = JSON.parse(await readFile(join(dir, 'maker-calibration.json'), 'utf8')) as Result;
    expect(saved).toEqual(r);
  });

  it('is deterministic for a seed with --model sim, and maker run --confidence auto uses its k', async () => {
    const args = [
      'calibrate',
      '--model',
      'sim',
      '--p',
      '0.7',
      '--v',
      '0.9',
      '--tasks',
      '3',
      '--samples',
      '8',
    ];
    // Seed 4 twice (once for a person, once as JSON), seed 5 once.
    const dir = await tempDir();
    const [human, b, other] = await Promise.all([
      maker([...args, '--seed', '4', '--dir', dir]),
      (async () => maker([...args, '--seed', '4', '--dir', await tempDir(), '--json']))(),
      (async () => maker([...args, '--seed', '5', '--dir', await tempDir(), '--json']))(),
    ]);
    const strip = (text: string) => ({ ...(JSON.parse(text) as Result), measuredAt: '' });
    expect(human.code, human.stderr).toBe(0);
    // What the person's run saved is what --json prints (the first test).
    const a = strip(await readFile(join(dir, 'maker-calibration.json'), 'utf8'));
    expect(a).toEqual(strip(b.stdout));
    expect(strip(other.stdout)).not.toEqual(a);

    expect(human.stdout).toMatch(/p \(correct\) +0\.\d{3} +\[0\.\d{3}, 0\.\d{3}\]/);
    expect(human.stdout).toMatch(/Recommended k = \d+/);
    // A folder that is not (yet) a git repository: nothing is said about keeping it out of git.
    expect(human.stdout).toMatch(
      /Saved to .*maker-calibration\.json \(`maker run --confidence auto` uses it\)\.\n/,
    );
    const k = a.recommendedK;
    const run = await maker([
      'run',
      'a tool',
      '--dir',
      dir,
      '--worker',
      'sim',
      '--no-checks',
      '--max-depth',
      '1',
      '--confidence',
      'auto',
      '--hitl',
      'auto',
      '--json',
    ]);
    expect(run.code, run.stderr).toBe(0);
    expect(run.stderr).toContain(`k = ${k} from maker-calibration.json (sim`);
    const state = JSON.parse(await readFile(join(dir, 'maker-state.json'), 'utf8')) as {
      runs: Record<string, { config: { k: number } }>;
    };
    expect(Object.values(state.runs)[0]?.config.k).toBe(k);
    const { stdout: status } = await exec('git', ['-C', dir, 'status', '--porcelain']);
    expect(status).not.toContain('maker-calibration.json');
  });

  it('advises k from the lower end of p’s interval: a few samples all right do not prove p = 1', async () => {
    const dir = await tempDir();
    const out = await maker([
      'calibrate',
      '--model',
      'sim',
      '--p',
      '1',
      '--v',
      '1',
      '--tasks',
      '3',
      '--samples',
      '5',
      '--dir',
      dir,
      '--json',
    ]);
    expect(out.code, out.stderr).toBe(0);
    const r = JSON.parse(out.stdout) as Result & { pFull: number };
    expect([r.correctSamples, r.validSamples]).toEqual([15, 15]);
    // 15 of 15 right puts p in [0.80, 1] (95%): k = 1 would bet 50 subtasks on p being 1.
    const estimate = await maker([
      'estimate',
      '--p',
      String(r.pLow),
      '--steps',
      '50',
      '--target',
      '0.95',
      '--json',
    ]);
    const e = JSON.parse(estimate.stdout) as { kMin: number; pFull: number };
    expect(r.recommendedK).toBe(e.kMin);
    expect(r.recommendedK).toBeGreaterThan(1);
    expect(r.pFull).toBeCloseTo(e.pFull, 9);
    expect(r.pFull).toBeLessThan(1);
  });

  it("recovers p within its interval from samples that differ as real ones do, voting with the run's classes", async () => {
    const dir = await tempDir();
    // The simulated coder writes each answer in one of a few styles (a comment, wider indentation).
    const out = await maker([
      'calibrate',
      '--model',
      'sim',
      '--p',
      '0.8',
      '--v',
      '0.95',
      '--tasks',
      '6',
      '--samples',
      '12',
      '--seed',
      '2',
      '--dir',
      dir,
      '--json',
    ]);
    expect(out.code, out.stderr).toBe(0);
    const r = JSON.parse(out.stdout) as Result;
    expect(r.pLow).toBeLessThanOrEqual(0.8);
    expect(r.pHigh).toBeGreaterThanOrEqual(0.8);
    const votes = (
      JSON.parse(out.stdout) as {
        votes: { k: number; correct: number; undecided: number; drawsPerSubtask: number }[];
      }
    ).votes;
    const k2 = votes.find((v) => v.k === 2);
    // Restyled right answers are one answer: k = 2 settles by agreement, within a run's cap of 8.
    expect(k2?.correct).toBeGreaterThan(0.85);
    expect(k2?.undecided).toBeLessThan(0.1);
    expect(k2?.drawsPerSubtask).toBeLessThanOrEqual(8);
  });

  it('refuses --confidence auto without a calibration, and --p with a real model', async () => {
    const dir = await tempDir();
    const run = await maker([
      'run',
      'a tool',
      '--dir',
      dir,
      '--worker',
      'sim',
      '--no-checks',
      '--confidence',
      'auto',
    ]);
    expect(run.code).toBe(2);
    expect(run.stderr).toContain('run `maker calibrate');
    const cal = await maker(['calibrate', '--model', 'gemini-2.5-flash', '--p', '0.9'], {
      GEMINI_API_KEY: 'k',
    });
    expect(cal.code).toBe(2);
    expect(cal.stderr).toContain('--model sim only');
  });
});
