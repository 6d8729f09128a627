import { afterEach, describe, expect, it } from 'vitest';
import { answerQuestion } from '../../src/app/answer-question.js';
import { FileSource } from '../../src/surfaces/view/file-source.js';
import { Store } from '../../src/surfaces/view/page/store.js';
import type {
  LogEntry,
  NodesDelta,
  RunDelta,
  RunSnapshot,
} from '../../src/surfaces/view/protocol.js';
import { startViewServer, type ViewHandle } from '../../src/surfaces/view/server.js';
import { useTempDirs } from '../helpers/tmp.js';
import { readEvents } from './http.js';
import { simRun } from './sim-run.js';

const tempDir = useTempDirs();
const views: ViewHandle[] = [];
afterEach(async () => {
  for (const view of views.splice(0)) await view.close();
});

/** What the page does with each event (as `main.ts` applies them). */
function apply(store: Store, event: { event: string; data: unknown }): void {
  if (event.event === 'snapshot') store.applySnapshot(event.data as RunSnapshot);
  if (event.event === 'nodes') store.applyNodes(event.data as NodesDelta);
  if (event.event === 'run') store.applyRun(event.data as RunDelta);
  if (event.event === 'log') store.appendLog(event.data as LogEntry[]);
}

describe('the page’s activity log', () => {
  it('shows a journal line once, though the page connected between its append and the next look', async () => {
    const dir = await tempDir();
    const { runId, outcome } = await simRun(dir);
    const question = outcome.status === 'awaiting-human' ? outcome.pending[0] : undefined;
    if (question === undefined) throw new Error('the sim asked nothing');
    // Polls only when told to (tick), so the order below is the test's.
    const source = await FileSource.open({ dir, secrets: [], pollMs: 3_600_000 });
    const view = await startViewServer({ source });
    views.push(view);
    const token = new URL(view.url).searchParams.get('token') ?? '';

    // Another process answers: its journal line is there before the view looks again.
    await answerQuestion(
      { dir, secrets: [], command: 'answer' },
      { questionId: question.id, answer: '1' },
    );
    let logs = 0;
    let connected = () => undefined as void;
    const joined = new Promise<void>((r) => (connected = r));
    const stream = readEvents(view.port, `/events?token=${token}`, (e) => {
      if (e.event === 'log') logs += 1;
      if (logs === 1) connected();
      return logs === 2;
    });
    await joined;
    await source.tick();
    const events = await stream.events;

    const store = new Store();
    for (const event of events) apply(store, event);
    const seqs = store.log.map((e) => e.seq);
    expect(store.log.at(-1)?.type).toBe('question-answered');
    expect(seqs).toEqual([...new Set(seqs)]);
    expect(store.questions[0]?.answer).toEqual({ optionId: 'opt-1' });
    expect(runId).toBe(store.run?.id);
  });
});
