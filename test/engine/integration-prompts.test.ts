import { execFileSync } from 'node:child_process';
import { afterEach, describe, expect, it } from 'vitest';
import { GeminiModel } from '../../src/adapters/gemini/gemini-model.js';
import { makerStateFile } from '../../src/adapters/state/state-file.js';
import { LlmPlanner } from '../../src/engine/llm-planner.js';
import { LlmWorker } from '../../src/engine/llm-worker.js';
import { MakerEngine } from '../../src/engine/maker-engine.js';
import { openWorkspace } from '../../src/surfaces/wiring.js';
import { startFakeGemini, type FakeGemini } from '../../src/testing/fake-gemini.js';
import { conflictModel, INTEGRATED } from '../helpers/conflict-model.js';
import { baseConfig } from '../helpers/engine.js';
import { useTempDirs } from '../helpers/tmp.js';

const tempDir = useTempDirs();
let fake: FakeGemini | undefined;
afterEach(async () => {
  await fake?.close();
  fake = undefined;
});
const git = (dir: string, ...args: string[]) =>
  execFileSync('git', args, { cwd: dir, encoding: 'utf8' }).trim();

describe('an integration (two subtasks that conflict) over a Gemini-speaking fake', () => {
  it('is its own task for the worker, the review and the ballot, with markers that name the sides', async () => {
    fake = await startFakeGemini(conflictModel);
    const dir = await tempDir();
    const workspace = await openWorkspace(dir, true);
    const model = new GeminiModel({
      model: 'gemini-2.5-flash',
      apiKey: ['AIza', 'K'.repeat(35)].join(''),
      baseUrl: fake.baseUrl,
      attempts: 1,
    });
    const engine = new MakerEngine({
      workspace,
      roles: { planner: new LlmPlanner(model), worker: new LlmWorker(model, workspace) },
      store: makerStateFile(dir),
    });
    const runId = await engine.create('a greeter', {
      ...baseConfig,
      worker: 'gemini',
      planner: 'gemini',
      model: 'gemini-2.5-flash',
      maxDepth: 1,
    });
    const outcome = await engine.run(runId);
    expect(outcome.error).toBeUndefined();
    expect(outcome.status).toBe('done');
    // The judges' pick (the later draws' version) landed, not a discarded vote's fallback.
    expect(git(dir, 'show', 'main:app.py') + '\n').toBe(INTEGRATED[1]);

    const integration = fake.requests.filter((r) => /^Task: Integrate /m.test(r.prompt));
    const workers = integration.filter((r) => r.prompt.includes('Reply as JSON {"files"'));
    const reviews = integration.filter((r) => r.prompt.includes('A proposal for this task'));
    const ballots = integration.filter((r) => r.prompt.includes('"choice"'));
    expect(workers.length).toBeGreaterThanOrEqual(3);
    expect(reviews.length).toBeGreaterThanOrEqual(3);
    expect(ballots.length).toBeGreaterThanOrEqual(1);
    for (const r of ballots)
      expect(r.prompt).toContain(
        'Which change best completes the subtask "Integrate "Add the farewell"',
      );
    for (const r of [...workers, ...reviews, ...ballots]) {
      // Both sides' intent, by title and acceptance.
      expect(r.prompt).toContain('"Add the greeting": greet() returns "hello"');
      expect(r.prompt).toContain('"Add the farewell": farewell() returns "bye"');
    }
    for (const r of workers) {
      // The merge base (app.py did not exist), both sides' versions, markers named by side.
      expect(r.prompt).toContain(
        '=== app.py, at the merge base (before either side) ===\n(does not exist)',
      );
      expect(r.prompt).toContain('as "Add the farewell" left it ===\ndef farewell():');
      expect(r.prompt).toContain('as "a greeter" so far left it ===\ndef greet():');
      expect(r.prompt).toContain('<<<<<<< "a greeter" so far');
      expect(r.prompt).toContain('>>>>>>> "Add the farewell"');
      expect(r.prompt).not.toMatch(/[0-9a-f]{40}/);
    }
  });
});
