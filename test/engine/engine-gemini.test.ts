import { execFileSync } from 'node:child_process';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { summarise } from '../../src/core/view/summary.js';
import { afterEach, describe, expect, it } from 'vitest';
import { GeminiModel } from '../../src/adapters/gemini/gemini-model.js';
import { makerStateFile } from '../../src/adapters/state/state-file.js';
import { LlmPlanner } from '../../src/engine/models/llm-planner.js';
import { LlmWorker } from '../../src/engine/models/llm-worker.js';
import { MakerEngine } from '../../src/engine/maker-engine.js';
import { openWorkspace } from '../../src/app/wiring/wiring.js';
import { startFakeGemini, type FakeGemini } from '../../src/offline/fake-gemini.js';
import { projectModel } from '../helpers/project-model.js';
import { baseConfig } from '../helpers/engine.js';
import { useTempDirs } from '../helpers/tmp.js';
import { promptRole } from '../helpers/prompts.js';
import { workspaceSettings } from '../helpers/settings.js';

const tempDir = useTempDirs();
let fake: FakeGemini | undefined;
afterEach(async () => {
  await fake?.close();
  fake = undefined;
});
const git = (dir: string, ...args: string[]) =>
  execFileSync('git', args, { cwd: dir, encoding: 'utf8' }).trim();

describe('MakerEngine over Gemini (a local fake speaking generateContent)', () => {
  it('plans, writes, votes and lands through the real @google/genai client', async () => {
    fake = await startFakeGemini(projectModel);
    const dir = await tempDir();
    const workspace = await openWorkspace(dir, true, workspaceSettings());
    const apiKey = ['AIza', 'K'.repeat(35)].join('');
    const model = new GeminiModel({
      model: 'gemini-2.5-flash',
      apiKey,
      baseUrl: fake.baseUrl,
    });
    const engine = new MakerEngine({
      workspace,
      roles: { planner: new LlmPlanner(model), worker: new LlmWorker(model, workspace) },
      store: makerStateFile(dir),
    });
    const runId = await engine.create('a CLI that converts CSV to JSON', {
      ...baseConfig,
      worker: 'gemini',
      planner: 'gemini',
      model: 'gemini-2.5-flash',
    });
    const outcome = await engine.run(runId);
    expect(outcome.error).toBeUndefined();
    expect(outcome.status).toBe('done');
    expect(git(dir, 'show', 'main:src/convert.py')).toContain('csv.DictReader');
    expect(git(dir, 'show', 'main:README.md')).toContain('csv2json');
    const run = await engine.getRun(runId);
    const flags = Object.values(run.nodes).flatMap((n) =>
      (n.leaf?.draws ?? []).flatMap((d) => d.flags.map((f) => f.rule)),
    );
    expect(flags).toContain('worker-failed');
    // Costs are counted; the key reached the API and nowhere else.
    expect(fake.requests.every((r) => r.apiKey === apiKey)).toBe(true);
    expect(await readFile(join(dir, 'maker-state.json'), 'utf8')).not.toContain(apiKey);
    const summary = summarise(run);
    // Every request the model received is counted, the worker's own included, by role.
    expect(summary.modelCalls).toBe(fake.requests.length);
    expect(summary.byRole['worker']?.calls).toBe(
      fake.requests.filter((r) => promptRole(r) === 'worker').length,
    );
    expect(Object.values(summary.byRole).reduce((a, r) => a + r.calls, 0)).toBe(
      fake.requests.length,
    );
    expect(Object.values(summary.byRole).reduce((a, r) => a + r.tokens, 0)).toBe(summary.tokens);
    expect(summary.tokens).toBeGreaterThan(0);
    expect(summary.estimatedCostUsd).toBeGreaterThan(0);
    expect(fake.requests.every((r) => r.responseMimeType === 'application/json')).toBe(true);
    // Every sample as the model's table says (Gemini 2.5 at its default 1.0): none is special.
    expect(fake.requests.every((r) => r.temperature === 1)).toBe(true);
    // The README leaf depends on the converter: it starts from the head that contains it.
    expect(run.nodes['1']?.baseCommit).toBe(run.nodes['root']?.mergeHeads[1]);
    expect(git(dir, 'log', '--format=%B', '-1', `maker/${runId}/n-0`)).toMatch(
      /Maker-Votes: 3 of 3 valid/,
    );
  });
});
