import { afterEach, describe, expect, it } from 'vitest';
import { CALIBRATION_SUITE } from '../../src/engine/calibration/suite.js';
import { startFakeGemini, type FakeGemini } from '../../src/offline/fake-gemini.js';
import { RealisticModel } from '../../src/offline/product/realistic-model.js';
import { realisticResponder } from '../../src/offline/product/responder.js';
import { calibrationIdeas } from '../helpers/calibration-ideas.js';
import { useTempDirs } from '../helpers/tmp.js';
import { maker } from '../helpers/cli.js';
import { machineSandbox } from '../helpers/settings.js';

const tempDir = useTempDirs();
const sandbox = await machineSandbox();
const fakes: FakeGemini[] = [];
afterEach(async () => {
  for (const fake of fakes.splice(0)) await fake.close();
});

interface Result {
  p: number;
  pLow: number;
  pHigh: number;
  validSamples: number;
  correctSamples: number;
  votes: { k: number; correct: number; undecided: number; drawsPerSubtask: number }[];
  perTask: { id: string; valid: number; correct: number; answers: number; classes: number }[];
}

const TASKS = 8;
const SAMPLES = 20;

/** `maker calibrate` against the realistic fake at `p`, over the fake Gemini server. */
async function calibrateAt(p: number): Promise<{ result: Result; model: RealisticModel }> {
  const model = new RealisticModel({
    p,
    slip: 0.1,
    judgeAccuracy: 0.4,
    seed: 3,
    ideas: calibrationIdeas(CALIBRATION_SUITE.slice(0, TASKS)),
  });
  const fake = await startFakeGemini(realisticResponder(model));
  fakes.push(fake);
  const { stdout } = await maker(
    [
      'calibrate',
      '--model',
      'gemini-2.5-flash',
      '--tasks',
      String(TASKS),
      '--samples',
      String(SAMPLES),
      '--dir',
      await tempDir(),
      '--json',
    ],
    {
      GEMINI_API_KEY: 'test-key',
      GOOGLE_GEMINI_BASE_URL: fake.baseUrl,
    },
  );
  return { result: JSON.parse(stdout) as Result, model };
}

/**
 * The realistic fake's knobs for calibration. At judge accuracy 0.4 its reviewer discards right
 * and wrong code alike (30% each: right code with chance (1 − J)/2; subtle flaws J/2 and obvious
 * ones J, half of its wrong samples each), and its slips are red-flagged whatever the code: so the
 * share of valid samples that are right, which calibrate measures, is the configured p itself.
 * (A sharper reviewer discards more wrong samples than right ones, and p among valid ones rises,
 * as red flags are meant to make it.)
 */
describe.runIf(sandbox !== undefined)(
  'maker calibrate against the realistic fake',
  { timeout: 300_000 },
  () => {
    it("recovers p within its interval, voting with the run's classes", async () => {
      const [high, low] = await Promise.all([calibrateAt(0.8), calibrateAt(0.55)]);
      for (const [{ result }, p, other] of [
        [high, 0.8, 0.55],
        [low, 0.55, 0.8],
      ] as const) {
        // About 100 valid samples of 160: the 95% interval is about ±0.08 wide.
        expect(result.validSamples).toBeGreaterThan(80);
        expect(result.pLow).toBeLessThanOrEqual(p);
        expect(result.pHigh).toBeGreaterThanOrEqual(p);
        // Narrow enough to tell the two apart: the test fails for a p it does not recover.
        expect(other < result.pLow || other > result.pHigh).toBe(true);
      }
      // The fake wrote right code in several forms (indentation, a header comment): the samples
      // vote by the run's classes, not by their text.
      expect(high.model.stats.code['correct']).toBeGreaterThan(80);
      for (const { result } of [high, low]) {
        const answers = result.perTask.reduce((n, t) => n + t.answers, 0);
        const classes = result.perTask.reduce((n, t) => n + t.classes, 0);
        expect(classes).toBeLessThan(answers * 0.7);
        for (const t of result.perTask) expect(t.classes).toBeLessThanOrEqual(t.answers);
      }
    });
  },
);
