import { mkdtemp, readdir, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { samplingFor } from '../../src/core/sampling.js';
import type {
  GenerateRequest,
  GenerateResult,
  LanguageModel,
} from '../../src/ports/language-model.js';
import { singleShot } from '../../src/surfaces/bench/product-single-shot.js';
import { PRODUCT_IDEAS } from '../../src/offline/product/ideas/index.js';
import { RealisticModel } from '../../src/offline/product/realistic-model.js';

/** Passes every request on to the realistic fake, keeping what was asked. */
class Recording implements LanguageModel {
  readonly id: string;
  readonly requests: GenerateRequest[] = [];
  constructor(readonly inner: LanguageModel) {
    this.id = inner.id;
  }
  generate(request: GenerateRequest): Promise<GenerateResult> {
    this.requests.push(request);
    return this.inner.generate(request);
  }
}

const dirs: string[] = [];
afterEach(async () => {
  await Promise.all(dirs.splice(0).map((d) => rm(d, { recursive: true, force: true })));
});

describe('the single-shot baseline of maker bench product', () => {
  it('samples every request as MAKER does, from the model table (no greedy plan)', async () => {
    const idea = PRODUCT_IDEAS.find((i) => i.name === 'text-stats');
    if (idea === undefined) throw new Error('text-stats is a built-in idea');
    const model = new Recording(
      new RealisticModel({ p: 0.8, slip: 0.1, judgeAccuracy: 0.9, seed: 3 }),
    );
    const dir = await mkdtemp(join(tmpdir(), 'maker-single-shot-'));
    dirs.push(dir);
    await singleShot(model, idea.idea, dir, 'single-text-stats-3');

    const [plan, ...code] = model.requests;
    expect(plan?.draw).toBe('root:split:0');
    expect(plan?.temperature).toBe(samplingFor(model.id, 'split').temperature);
    expect(plan?.temperature).toBe(1);
    expect(code.length).toBeGreaterThan(0);
    for (const request of code) {
      expect(request.draw).toMatch(/^\d+:worker:0$/);
      expect(request.temperature).toBe(samplingFor(model.id, 'worker').temperature);
    }
    // One sample per decision: the plan, then one answer per subtask; the product is on disk.
    expect(new Set(model.requests.map((r) => r.draw)).size).toBe(model.requests.length);
    expect((await readdir(dir)).length).toBeGreaterThan(0);
  });
});
