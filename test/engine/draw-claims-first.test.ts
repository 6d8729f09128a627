import { describe, expect, it } from 'vitest';
import type { Draw, TreeNode } from '../../src/core/tree/schema.js';
import type { RunContext } from '../../src/engine/run/run-context.js';
import { Semaphore, type HeldSlot } from '../../src/core/semaphore.js';
import { drawSlot, type DrawResult } from '../../src/engine/vote/votes.js';

const flush = () => new Promise((resolve) => setImmediate(resolve));

/** What drawSlot uses of a run: saves (counted, each a snapshot of the list), events, one paid slot. */
function fakeRun(semaphore: Semaphore, list: Draw[]) {
  const saved: string[] = [];
  const ctx = {
    save: () => (saved.push(JSON.stringify(list)), Promise.resolve()),
    emit: () => undefined,
    paid: <T>(work: () => Promise<T>) => semaphore.run(work),
    claim: (options?: { readonly ahead?: boolean }) => semaphore.acquire(undefined, options),
  } as unknown as RunContext;
  return { ctx, saved };
}

const node = { id: 'n1' } as TreeNode;

describe('drawSlot, claiming its first paid slot', () => {
  it('records the draw as started before it waits, and builds nothing until a slot is free', async () => {
    const semaphore = new Semaphore(1);
    const list: Draw[] = [];
    const { ctx, saved } = fakeRun(semaphore, list);
    const holder = await semaphore.acquire();
    const produced: (HeldSlot | undefined)[] = [];
    const draws = [0, 1].map((slot) =>
      drawSlot(
        ctx,
        node,
        'patch',
        list,
        slot,
        async (_started, _resumed, first): Promise<DrawResult> => {
          produced.push(first);
          const value = await (first as HeldSlot).run(() => Promise.resolve(`v${slot}`));
          return { ok: true, key: `k${slot}`, value };
        },
        true,
        true,
      ),
    );
    await flush();
    // Write-ahead as before: both draws saved as started; neither produced while no slot is free.
    expect(saved).toHaveLength(2);
    expect(list.map((d) => d.status)).toEqual(['started', 'started']);
    expect(produced).toEqual([]);
    holder.release();
    const done = await Promise.all(draws);
    expect(produced).toHaveLength(2);
    expect(produced.every((first) => first !== undefined)).toBe(true);
    expect(done.map((d) => [d.status, d.key, d.value])).toEqual([
      ['valid', 'k0', 'v0'],
      ['valid', 'k1', 'v1'],
    ]);
    // Every slot is free again.
    const again = await semaphore.acquire();
    again.release();
  });

  it('frees the claimed slot when the draw ends without using it, or fails', async () => {
    const semaphore = new Semaphore(1);
    const list: Draw[] = [];
    const { ctx } = fakeRun(semaphore, list);
    const flagged = await drawSlot(
      ctx,
      node,
      'patch',
      list,
      0,
      () => Promise.resolve({ ok: false, flags: [{ rule: 'worker-failed', message: 'no' }] }),
      true,
      true,
    );
    expect(flagged.status).toBe('flagged');
    await expect(
      drawSlot(ctx, node, 'patch', list, 1, () => Promise.reject(new Error('boom')), true, true),
    ).rejects.toThrow('boom');
    // One slot, free: taken at once.
    expect(await semaphore.run(() => Promise.resolve('free'))).toBe('free');
  });

  it('records agreeing draws with their keys, aliases and trees (one string each, shared)', async () => {
    const semaphore = new Semaphore(2);
    const list: Draw[] = [];
    const { ctx } = fakeRun(semaphore, list);
    const hash = (c: string) => c.repeat(40);
    const results = await Promise.all(
      [0, 1].map((slot) =>
        drawSlot(ctx, node, 'patch', list, slot, () =>
          // Each candidate makes its hashes anew: equal text, different strings.
          Promise.resolve({
            ok: true,
            key: hash('a'),
            alias: hash('b'),
            tree: hash('c'),
            value: slot,
          }),
        ),
      ),
    );
    expect(results.map((d) => [d.key, d.alias, d.tree])).toEqual([
      [hash('a'), hash('b'), hash('c')],
      [hash('a'), hash('b'), hash('c')],
    ]);
  });
});
