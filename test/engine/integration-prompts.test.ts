import { describe, expect, it } from 'vitest';
import { openWorkspace } from '../../src/app/wiring/wiring.js';
import { conflictModel, INTEGRATED } from '../helpers/conflict-model.js';
import { geminiConfig, geminiEngine, git, useFakeGemini } from '../helpers/gemini-engine.js';
import { useTempDirs } from '../helpers/tmp.js';
import { isIntegration, promptRole } from '../helpers/prompts.js';
import { workspaceSettings } from '../helpers/settings.js';

const tempDir = useTempDirs();
const startFake = useFakeGemini();

describe('an integration (two subtasks that conflict) over a Gemini-speaking fake', () => {
  it('is its own task for the worker, the review and the ballot, with markers that name the sides', async () => {
    const fake = await startFake(conflictModel);
    const dir = await tempDir();
    const engine = geminiEngine(dir, await openWorkspace(dir, true, workspaceSettings()), fake);
    const runId = await engine.create('a greeter', geminiConfig);
    const outcome = await engine.run(runId);
    expect(outcome.error).toBeUndefined();
    expect(outcome.status).toBe('done');
    // The judges' pick (the later draws' version) landed, not a discarded vote's fallback.
    expect(git(dir, 'show', 'main:app.py') + '\n').toBe(INTEGRATED[1]);

    const integration = fake.requests.filter((r) => isIntegration(r.prompt));
    const workers = integration.filter((r) => promptRole(r) === 'worker');
    const reviews = integration.filter((r) => promptRole(r) === 'review');
    const ballots = integration.filter((r) => ['ballot', 'blame'].includes(promptRole(r) ?? ''));
    expect(workers.length).toBeGreaterThanOrEqual(3);
    expect(reviews.length).toBeGreaterThanOrEqual(3);
    expect(ballots.length).toBeGreaterThanOrEqual(1);
    for (const r of ballots) {
      // The integration's own task, with what "best" means for it.
      expect(r.prompt).toMatch(
        /Which resolution of the merge conflict in "Integrate "Add the farewell"/,
      );
      expect(r.prompt).toContain('Best means:');
    }
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
