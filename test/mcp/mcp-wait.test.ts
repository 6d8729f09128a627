import { describe, expect, it } from 'vitest';
import { RunManager } from '../../src/surfaces/mcp/run-manager.js';
import { startFakeGemini } from '../../src/offline/fake-gemini.js';
import { text, useMcpClients } from '../helpers/mcp.js';
import { useTempDirs } from '../helpers/tmp.js';

const tempDir = useTempDirs();
const connect = useMcpClients();
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
        runChecks: false,
        sim: { clarify: false },
      });
      const { engine } = await runs.run(runId);
      if (engine === undefined) throw new Error(`run ${runId} is not driven by this server`);
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

describe('maker_wait while nothing happens', () => {
  it('gives a new cursor on every call, so consecutive waits differ (Gemini CLI stops a session after 5 identical calls)', async () => {
    const held: (() => void)[] = [];
    // Every model call is still out: the run emits nothing while the waits run.
    const fake = await startFakeGemini(
      () => new Promise((resolve) => held.push(() => resolve({ status: 503, message: 'gone' }))),
    );
    try {
      const dir = await tempDir();
      const { call } = await connect(dir, {
        GEMINI_API_KEY: 'fake-key-1234',
        GOOGLE_GEMINI_BASE_URL: fake.baseUrl,
      });
      const started = await call('maker_start', { idea: 'a csv tool' });
      const runId = (started.structuredContent as { runId: string }).runId;
      const next = (result: string) =>
        Number(/call maker_wait with runId="[^"]+" and cursor=(\d+)/.exec(result)?.[1]);
      const calls = [next(text(started))];
      for (let i = 0; i < 3; i++) {
        const waited = await call('maker_wait', { runId, cursor: calls.at(-1), seconds: 1 });
        expect(text(waited)).toMatch(/: running\./);
        calls.push(next(text(waited)));
      }
      for (let i = 1; i < calls.length; i++) expect(calls[i]).not.toBe(calls[i - 1]);
    } finally {
      for (const release of held) release();
      await fake.close();
    }
  });
});

describe('the latest run, when no run id is given', () => {
  it('is found in a repository under the workspace: maker_status at once, maker_resume after a restart', async () => {
    const workspace = await tempDir();
    const first = await connect(workspace);
    const started = await first.call('maker_start', {
      idea: 'an app',
      worker: 'sim',
      runChecks: false,
      repo: 'app',
    });
    const runId = (started.structuredContent as { runId: string }).runId;
    const status = await first.call('maker_status', {});
    expect(status.isError, text(status)).toBeFalsy();
    expect(text(status)).toContain(`run ${runId} ("an app")`);
    await first.close();

    const second = await connect(workspace);
    const resumed = await second.call('maker_resume', {});
    expect(resumed.isError, text(resumed)).toBeFalsy();
    expect(text(resumed)).toContain(`Resumed run ${runId}.`);
  });
});

describe('maker_answer for a run this server is not running', () => {
  it('says the answer was recorded when the run cannot go on yet, and what it needs', async () => {
    const dir = await tempDir();
    const first = await connect(dir, { PATH: process.env['PATH'] });
    const started = await first.call('maker_start', {
      idea: 'a notes app',
      worker: 'sim',
      check: 'true',
    });
    expect(started.isError, text(started)).toBeFalsy();
    const runId = (started.structuredContent as { runId: string }).runId;
    expect(text(await first.call('maker_wait', { runId, cursor: 0, seconds: 60 }))).toMatch(
      /questionId="q-root-clarify-0"/,
    );
    await first.close();

    // After a restart where the run's check can no longer be sandboxed (no bwrap on the PATH).
    const second = await connect(dir, {});
    const answered = await second.call('maker_answer', {
      runId,
      questionId: 'q-root-clarify-0',
      answer: '1',
    });
    expect(text(answered)).toMatch(/^Recorded q-root-clarify-0 = /);
    expect(text(answered)).toMatch(/bwrap|sandbox/);
    expect(text(answered)).not.toMatch(/The run was not changed/);
    const again = await second.call('maker_answer', {
      runId,
      questionId: 'q-root-clarify-0',
      answer: '1',
    });
    expect(text(again)).toMatch(/already answered/);
  });
});
