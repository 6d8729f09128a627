import { getEventListeners } from 'node:events';
import { describe, expect, it } from 'vitest';
import { AbortedError } from '../../src/core/errors.js';
import { Semaphore } from '../../src/core/semaphore.js';

/** A task that runs until `finish()` is called, recording its start. */
function gate(log: string[], name: string) {
  let finish!: () => void;
  const done = new Promise<void>((resolve) => (finish = resolve));
  return { work: async () => (log.push(name), await done, name), finish: () => finish() };
}

const flush = () => new Promise((resolve) => setImmediate(resolve));

describe('Semaphore', () => {
  it('runs at most `limit` tasks and hands slots on in arrival order', async () => {
    const semaphore = new Semaphore(2);
    const log: string[] = [];
    const gates = ['a', 'b', 'c', 'd', 'e'].map((name) => gate(log, name));
    const runs = gates.map((g) => semaphore.run(g.work));
    await flush();
    expect(log).toEqual(['a', 'b']);
    gates[1]?.finish();
    await flush();
    expect(log).toEqual(['a', 'b', 'c']);
    gates[0]?.finish();
    gates[2]?.finish();
    await flush();
    expect(log).toEqual(['a', 'b', 'c', 'd', 'e']);
    gates[3]?.finish();
    gates[4]?.finish();
    expect(await Promise.all(runs)).toEqual(['a', 'b', 'c', 'd', 'e']);
  });

  it('adds one abort listener to a signal however many waiters hold it, and removes it when they leave', async () => {
    const semaphore = new Semaphore(1);
    const controller = new AbortController();
    const log: string[] = [];
    const first = gate(log, 'first');
    const running = semaphore.run(first.work, controller.signal);
    const waiters = Array.from({ length: 100 }, (_, i) => gate(log, `w${i}`));
    const runs = waiters.map((g) => semaphore.run(g.work, controller.signal));
    await flush();
    expect(getEventListeners(controller.signal, 'abort')).toHaveLength(1);

    first.finish();
    for (const waiter of waiters) {
      await flush();
      waiter.finish();
    }
    await Promise.all([running, ...runs]);
    expect(log).toEqual(['first', ...waiters.map((_, i) => `w${i}`)]);
    expect(getEventListeners(controller.signal, 'abort')).toHaveLength(0);
  });

  it('on abort rejects every waiter holding the signal and removes them from the queue', async () => {
    const semaphore = new Semaphore(1);
    const controller = new AbortController();
    const log: string[] = [];
    const holder = gate(log, 'holder');
    const held = semaphore.run(holder.work);
    const doomed = [gate(log, 'x'), gate(log, 'y')];
    const doomedRuns = doomed.map((g) => semaphore.run(g.work, controller.signal));
    const other = gate(log, 'other');
    const otherRun = semaphore.run(other.work, new AbortController().signal);
    const late = gate(log, 'late');
    const lateRun = semaphore.run(late.work, controller.signal);
    await flush();

    controller.abort(new Error('stop'));
    for (const run of [...doomedRuns, lateRun])
      await expect(run).rejects.toBeInstanceOf(AbortedError);
    expect(getEventListeners(controller.signal, 'abort')).toHaveLength(0);

    holder.finish();
    await flush();
    expect(log).toEqual(['holder', 'other']); // the aborted waiters never start
    other.finish();
    expect(await Promise.all([held, otherRun])).toEqual(['holder', 'other']);

    // The slot count survived: one slot, free again.
    const next = gate(log, 'next');
    const nextRun = semaphore.run(next.work);
    await flush();
    expect(log.at(-1)).toBe('next');
    next.finish();
    await nextRun;
  });

  it('takes aborted waiters out of line at once, not when their turn would have come', async () => {
    const semaphore = new Semaphore(1);
    const log: string[] = [];
    const holder = gate(log, 'holder');
    const held = semaphore.run(holder.work);
    const cancelled = new AbortController();
    const doomed = Array.from({ length: 1000 }, (_, i) =>
      semaphore.run(gate(log, `d${i}`).work, cancelled.signal),
    );
    const kept = gate(log, 'kept');
    const keptRun = semaphore.run(kept.work, new AbortController().signal);
    await flush();
    expect(semaphore.queued).toBe(1001);

    cancelled.abort(new Error('run cancelled'));
    await Promise.allSettled(doomed);
    // The slot is still held: without leaving at once, the thousand entries would wait for it.
    expect(semaphore.queued).toBe(1);
    expect(semaphore.waiting).toBe(1);

    holder.finish();
    await flush();
    kept.finish();
    expect(await Promise.all([held, keptRun])).toEqual(['holder', 'kept']);
    expect(log).toEqual(['holder', 'kept']);
    expect(semaphore.queued).toBe(0);
  });

  it('counts its waiters until each is granted or aborted: idle is no slot taken and nobody waiting', async () => {
    const semaphore = new Semaphore(1);
    const held = await semaphore.acquire();
    const controller = new AbortController();
    const gone = semaphore.acquire(controller.signal);
    const next = semaphore.acquire();
    expect([semaphore.active, semaphore.waiting]).toEqual([1, 2]);
    controller.abort(new Error('cancelled'));
    await expect(gone).rejects.toBeInstanceOf(AbortedError);
    expect(semaphore.waiting).toBe(1);
    held.release();
    expect([semaphore.active, semaphore.waiting]).toEqual([0, 1]); // handed on a moment later
    const granted = await next;
    expect([semaphore.active, semaphore.waiting]).toEqual([1, 0]);
    granted.release();
    expect([semaphore.active, semaphore.waiting]).toEqual([0, 0]);
  });

  it('rejects at once a waiter whose signal is already aborted, without queueing it', async () => {
    const semaphore = new Semaphore(1);
    const log: string[] = [];
    const holder = gate(log, 'holder');
    const held = semaphore.run(holder.work);
    const signal = AbortSignal.abort();
    let outcome: unknown = 'pending';
    semaphore.run(gate(log, 'never').work, signal).then(
      () => (outcome = 'ran'),
      (error: unknown) => (outcome = error),
    );
    await flush();
    expect(outcome).toBeInstanceOf(AbortedError);
    expect(getEventListeners(signal, 'abort')).toHaveLength(0);
    holder.finish();
    await held;
    expect(log).toEqual(['holder']);
  });

  it('serves waiters going ahead before the others, each in arrival order, and aborts them alike', async () => {
    const semaphore = new Semaphore(1);
    const controller = new AbortController();
    const log: string[] = [];
    const holder = gate(log, 'holder');
    const held = semaphore.run(holder.work);
    const [n1, n2, a1, a2] = ['n1', 'n2', 'a1', 'a2'].map((name) => gate(log, name));
    const runs = [
      semaphore.run(n1!.work),
      semaphore.run(n2!.work),
      semaphore.run(a1!.work, undefined, { ahead: true }),
      semaphore.run(a2!.work, undefined, { ahead: true }),
    ];
    const doomed = semaphore.run(gate(log, 'doomed').work, controller.signal, { ahead: true });
    controller.abort(new Error('stop'));
    await expect(doomed).rejects.toBeInstanceOf(AbortedError);
    expect(getEventListeners(controller.signal, 'abort')).toHaveLength(0);
    for (const g of [holder, a1, a2, n1, n2]) {
      g!.finish();
      await flush();
    }
    expect(log).toEqual(['holder', 'a1', 'a2', 'n1', 'n2']);
    expect(await Promise.all([held, ...runs])).toEqual(['holder', 'n1', 'n2', 'a1', 'a2']);
  });

  it('acquire waits in the same line as run, and a slot taken is freed once, by release or by its work', async () => {
    const semaphore = new Semaphore(1);
    const log: string[] = [];
    const holder = gate(log, 'holder');
    const running = semaphore.run(holder.work);
    const order: string[] = [];
    const claimed = semaphore.acquire().then((slot) => (order.push('claimed'), slot));
    const queued = semaphore.run(() => (order.push('queued'), Promise.resolve('queued')));
    await flush();
    expect(order).toEqual([]);
    holder.finish();
    const slot = await claimed;
    await flush();
    // The slot is held: the waiter behind it does not start until the slot's work ends.
    expect(order).toEqual(['claimed']);
    expect(await slot.run(() => Promise.resolve('work'))).toBe('work');
    slot.release(); // after its work: no second slot freed
    expect(await queued).toBe('queued');
    await running;
    // Only one slot: had release freed a second, both of these would start at once.
    const a = gate(log, 'a');
    const b = gate(log, 'b');
    const runs = [semaphore.run(a.work), semaphore.run(b.work)];
    await flush();
    expect(log).toEqual(['holder', 'a']);
    a.finish();
    b.finish();
    await Promise.all(runs);
    // Released unused, the slot goes to the next waiter; a released slot runs nothing.
    const unused = await semaphore.acquire();
    const next = semaphore.run(() => Promise.resolve('next'));
    unused.release();
    unused.release();
    expect(await next).toBe('next');
    await expect(unused.run(() => Promise.resolve('late'))).rejects.toThrow(/released/);
  });

  it('acquire rejects with AbortedError, and holds no slot, when its signal aborts', async () => {
    const semaphore = new Semaphore(1);
    const controller = new AbortController();
    const held = await semaphore.acquire(controller.signal);
    const waiting = semaphore.acquire(controller.signal);
    controller.abort(new Error('stop'));
    await expect(waiting).rejects.toBeInstanceOf(AbortedError);
    await expect(semaphore.acquire(controller.signal)).rejects.toBeInstanceOf(AbortedError);
    held.release();
    // Every slot is free again: one taken at once, without waiting.
    const again = await semaphore.acquire();
    expect(await again.run(() => Promise.resolve('free'))).toBe('free');
  });
});
