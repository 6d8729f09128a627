import { describe, expect, it } from 'vitest';
import { SimPlanner, SimWorker } from '../../src/adapters/sim/project-sim.js';
import { makerStateFile } from '../../src/adapters/state/state-file.js';
import type { Run } from '../../src/core/tree/schema.js';
import type { EngineEvent } from '../../src/engine/events.js';
import { MakerEngine } from '../../src/engine/maker-engine.js';
import { describeWaits, summarise } from '../../src/core/view/summary.js';
import type { ServiceWait } from '../../src/ports/waits.js';
import type { Worker } from '../../src/ports/worker.js';
import { openWorkspace } from '../../src/app/wiring/wiring.js';
import { baseConfig } from '../helpers/engine.js';
import { useTempDirs } from '../helpers/tmp.js';
import { workspaceSettings } from '../helpers/settings.js';

const tempDir = useTempDirs();

describe('waits on a service, as data', () => {
  it('records a long wait on the run in the state file while it lasts, announces it, and clears it; short ones are not shown', async () => {
    const dir = await tempDir();
    const workspace = await openWorkspace(dir, true, workspaceSettings());
    const now = new Date('2026-11-23T09:00:00Z');
    const sim = new SimWorker({ seed: 7 });
    let release: () => void = () => undefined;
    const released = new Promise<void>((resolve) => (release = resolve));
    let waited = false;
    // The sim worker, but its first candidate waits on a service first: 2 s (not shown), then 90 s.
    const worker: Worker = {
      id: 'sim',
      run: async (task, slot, _signal, hooks) => {
        if (!waited && hooks?.wait !== undefined) {
          waited = true;
          const wait = (ms: number): ServiceWait => ({
            service: 'jules',
            reason: 'Jules is failing (503) since 09:00:00Z; retrying.',
            until: new Date(now.getTime() + ms),
          });
          hooks.wait(wait(2000))();
          const end = hooks.wait(wait(90_000));
          await released;
          end();
          end();
        }
        return sim.run(task, slot);
      },
    };
    const events: EngineEvent[] = [];
    const engine = new MakerEngine({
      workspace,
      roles: { planner: new SimPlanner({ seed: 7, depth: 1 }), worker },
      store: makerStateFile(dir),
      journal: (event) => void events.push(event),
      now: () => now,
    });
    const runId = await engine.create('a tiny tool', { ...baseConfig, maxDepth: 1 });
    const running = engine.run(runId);
    // Another process (maker status) reads the state file while the wait lasts.
    let saved: Run | undefined;
    while ((saved?.waits ?? []).length === 0) {
      await new Promise((resolve) => setTimeout(resolve, 5));
      saved = (await makerStateFile(dir).load()).runs[runId];
    }
    if (saved === undefined) throw new Error('no run');
    expect(saved.waits).toEqual([
      {
        id: expect.stringMatching(/^jules-\d+$/) as string,
        service: 'jules',
        reason: 'Jules is failing (503) since 09:00:00Z; retrying.',
        since: '2026-11-23T09:00:00.000Z',
        until: '2026-11-23T09:01:30.000Z',
      },
    ]);
    expect(describeWaits(saved, now)).toEqual([
      'Waiting for jules until 09:01:30 UTC (in 90 s): Jules is failing (503) since 09:00:00Z; retrying.',
    ]);
    // Left by a process that died long ago: not shown.
    expect(describeWaits(saved, new Date('2026-11-23T09:03:00Z'))).toEqual([]);
    expect(summarise(saved).waits).toEqual([
      {
        service: 'jules',
        reason: 'Jules is failing (503) since 09:00:00Z; retrying.',
        until: '2026-11-23T09:01:30.000Z',
      },
    ]);
    release();
    expect((await running).status).toBe('done');
    expect((await makerStateFile(dir).load()).runs[runId]?.waits).toBeUndefined();
    const waitEvents = events.filter((e) => e.type === 'wait-start' || e.type === 'wait-end');
    expect(waitEvents.map((e) => e.type)).toEqual(['wait-start', 'wait-end']);
    expect(waitEvents[0]).toMatchObject({ service: 'jules', until: '2026-11-23T09:01:30.000Z' });
  });
});
