import { describe, expect, it } from 'vitest';
import { makerStateFile } from '../../../src/adapters/state/state-file.js';
import type { StartIntent } from '../../../src/core/tree/schema.js';
import { intentConfig } from '../../helpers/intent.js';
import { useTempDirs } from '../../helpers/tmp.js';

/** A run's start (`starting`) survives the snapshot and the log alike, and its removal too. */
const tempDir = useTempDirs();
const NEVER = { minLogBytes: 1 << 30, snapshotFactor: 1 };

function intent(id: string): StartIntent {
  return {
    id,
    idea: 'a csv tool',
    createdAt: '2026-11-26T00:00:00.000Z',
    command: 'run',
    config: intentConfig(),
    creates: { directory: true, gitRepository: true, githubRepository: true },
    github: {
      owner: 'alice',
      name: 'app',
      apiUrl: 'http://127.0.0.1:1',
      public: false,
      keepCandidates: false,
    },
  };
}

describe('the start under way in the state file', () => {
  it('is written in the snapshot and in the log, read back, and removed', async () => {
    const dir = await tempDir();
    const store = makerStateFile(dir, undefined, { policy: NEVER });
    const state = await store.load();
    state.starting = intent('r1');
    await store.save(state); // the first save: a snapshot
    expect((await makerStateFile(dir).load()).starting).toEqual(intent('r1'));
    state.starting = intent('r2');
    await store.save(state); // then the log
    expect((await makerStateFile(dir).load()).starting?.id).toBe('r2');
    state.starting = undefined;
    await store.save(state);
    expect((await makerStateFile(dir).load()).starting).toBeUndefined();
  });
});
