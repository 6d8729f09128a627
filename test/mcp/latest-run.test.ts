import { describe, expect, it } from 'vitest';
import { latestRun, once } from '../../src/surfaces/mcp/latest-run.js';
import type { Run } from '../../src/core/tree/schema.js';

const run = (id: string, createdAt: string, status: Run['status']) =>
  ({ id, createdAt, status }) as Run;

describe('the latest run across repositories', () => {
  it('with each state file read once, however many questions a bare maker_resume asks of it', async () => {
    // Proves: maker_resume's two searches (a run no other process drives, then any run) and the
    // dirs listed twice read each repository's state once.
    const reads: string[] = [];
    const states: Record<string, { runs: Record<string, Run> }> = {
      a: { runs: { r1: run('r1', '2026-12-01T10:00:00Z', 'failed') } },
      b: { runs: { r2: run('r2', '2026-12-01T11:00:00Z', 'running') } },
    };
    const state = once((dir) => {
      reads.push(dir);
      return Promise.resolve(states[dir]);
    });
    const unfinished = (r: Run) => r.status !== 'done';
    const lockedElsewhere = (dir: string) => Promise.resolve(dir === 'b');
    const free = await latestRun(
      ['a', 'b', 'a'],
      async (dir) => ((await lockedElsewhere(dir)) ? undefined : state(dir)),
      unfinished,
    );
    const any = await latestRun(['a', 'b', 'a'], state, unfinished);
    expect(free?.run.id).toBe('r1');
    expect(any?.run.id).toBe('r2');
    expect(reads).toEqual(['a', 'b']);
  });

  it('shares a failed read too: a corrupt state file is reported, not read again', async () => {
    let reads = 0;
    const state = once(() => {
      reads++;
      return Promise.reject(new Error('not valid JSON'));
    });
    await expect(latestRun(['x'], state, () => true)).rejects.toThrow('not valid JSON');
    await expect(latestRun(['x'], state, () => true)).rejects.toThrow('not valid JSON');
    expect(reads).toBe(1);
  });
});
