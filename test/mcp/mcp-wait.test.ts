import { describe, expect, it } from 'vitest';
import { RunManager } from '../../src/surfaces/mcp/run-manager.js';
import { useTempDirs } from '../helpers/tmp.js';

const tempDir = useTempDirs();
const turns = async (n: number) => {
  for (let i = 0; i < n; i++) await new Promise((resolve) => setImmediate(resolve));
};

describe('maker_wait', () => {
  it('returns at once for a run that has ended, even while its end is still being saved', async () => {
    const dir = await tempDir();
    const runs = new RunManager({ workspaceDir: dir, env: {} });
    try {
      const { runId } = await runs.start({
        idea: 'a csv tool',
        worker: 'sim',
        sim: { clarify: false },
      });
      const { engine } = await runs.run(runId);
      const stop = new AbortController();
      let waited: Promise<unknown> | undefined;
      let returned = false;
      // The person accepts the final veto; a maker_wait arrives as the run ends (its end event is
      // out, its last save not yet done).
      const watching = (async () => {
        for await (const event of engine.events(stop.signal)) {
          if (event.runId !== runId) continue;
          if (event.type === 'question-asked')
            void engine.answer(runId, event.question.id, 'accept');
          if (event.type === 'run-end') {
            waited = runs
              .wait(runId, 240, () => undefined, stop.signal)
              .then(() => {
                returned = true;
              });
            return;
          }
        }
      })();
      await watching;
      while ((await runs.run(runId)).active) await turns(1);
      await turns(20);
      expect((await runs.run(runId)).run.status).toBe('done');
      expect(returned).toBe(true);
      stop.abort();
      await waited;
    } finally {
      await runs.close();
    }
  });
});
