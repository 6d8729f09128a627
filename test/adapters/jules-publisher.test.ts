import { describe, expect, it } from 'vitest';
import { BranchPublisher } from '../../src/adapters/jules/publisher.js';

describe('BranchPublisher', () => {
  it('pushes the branches asked for at one moment in one push, each (branch, commit) once', async () => {
    const batches: string[][] = [];
    const singles: string[] = [];
    const publisher = new BranchPublisher(
      (branch) => (singles.push(branch), Promise.resolve()),
      (refs) => (batches.push(refs.map((r) => `${r.branch}@${r.commit}`)), Promise.resolve()),
    );
    await Promise.all([
      publisher.publish('a', '1'),
      publisher.publish('b', '1'),
      publisher.publish('a', '1'),
      publisher.publish('c', '2'),
    ]);
    expect(batches).toEqual([['a@1', 'b@1', 'c@2']]);
    expect(singles).toEqual([]);
    // Already published: nothing more is pushed. A lone new branch goes on its own.
    await publisher.publish('b', '1');
    await publisher.publish('d', '3');
    expect(batches).toHaveLength(1);
    expect(singles).toEqual(['d']);
  });

  it('after a failed batch, pushes each branch alone so each error reaches its own caller', async () => {
    const publisher = new BranchPublisher(
      (branch) =>
        branch === 'bad' ? Promise.reject(new Error(`rejected ${branch}`)) : Promise.resolve(),
      () => Promise.reject(new Error('batch rejected')),
    );
    const results = await Promise.allSettled([
      publisher.publish('good', '1'),
      publisher.publish('bad', '1'),
    ]);
    expect(results.map((r) => r.status)).toEqual(['fulfilled', 'rejected']);
    expect((results[1] as PromiseRejectedResult).reason).toEqual(new Error('rejected bad'));
    // A failed publication is forgotten, so the next attempt tries again.
    await expect(publisher.publish('bad', '1')).rejects.toThrow('rejected bad');
  });
});
