import { describe, expect, it } from 'vitest';
import { Slots } from '../../src/adapters/jules/slots.js';
import { AbortedError } from '../../src/core/errors.js';

/** Lets every settled promise's continuations run. */
const settle = () => new Promise<void>((resolve) => setImmediate(resolve));

describe("Jules's candidate slots", () => {
  it('let `limit` through at once, then the waiters in arrival order, each as a slot frees', async () => {
    const slots = new Slots(2);
    const order: string[] = [];
    const a = await slots.acquire();
    const b = await slots.acquire();
    const c = slots.acquire().then((release) => (order.push('c'), release));
    const d = slots.acquire().then((release) => (order.push('d'), release));
    await settle();
    expect(order).toEqual([]);
    b();
    await settle();
    expect(order).toEqual(['c']);
    a();
    await settle();
    expect(order).toEqual(['c', 'd']);
    (await c)();
    (await d)();
  });

  it('a waiter whose signal aborts leaves the line with AbortedError; the next one gets the slot', async () => {
    const slots = new Slots(1);
    const held = await slots.acquire();
    const controller = new AbortController();
    const gone = slots.acquire(controller.signal);
    const next = slots.acquire();
    controller.abort(new Error('cancelled'));
    await expect(gone).rejects.toBeInstanceOf(AbortedError);
    held();
    (await next)();
  });

  it("a halt stops its run's slots; one without a run's signal is cleared once every slot is free", async () => {
    const slots = new Slots(2);
    const first = await slots.acquire();
    const second = await slots.acquire();
    const stop = new Error('the daily sessions are spent');
    slots.halt(stop, undefined);
    expect(slots.halted).toBe(stop);
    expect(slots.haltable(undefined).aborted).toBe(true);
    expect(() => slots.throwIfHalted(undefined)).toThrow(stop);
    first();
    expect(slots.halted).toBe(stop); // a slot still works under the halt
    second();
    expect(slots.halted).toBeUndefined();
    expect(slots.haltable(undefined).aborted).toBe(false);
    expect(() => slots.throwIfHalted(undefined)).not.toThrow();
  });

  it('a halt without a signal is not cleared while callers still wait: they see it when their slot comes', async () => {
    // Proves: a freed slot passes to the next waiter a few microtasks later (p-queue), so "no slot
    // taken" is not "idle": the halt stays until no slot is taken and nobody waits.
    const slots = new Slots(1);
    const held = await slots.acquire();
    const waiting = slots.acquire();
    const stop = new Error('the daily sessions are spent');
    slots.halt(stop, undefined);
    held();
    const next = await waiting;
    expect(() => slots.throwIfHalted(undefined)).toThrow(stop);
    next();
    expect(slots.halted).toBeUndefined();
  });

  it("a run's halt stays with that run: a call under another signal (a resume) starts afresh", async () => {
    const slots = new Slots(1);
    const run = new AbortController();
    const release = await slots.acquire(run.signal);
    const stop = new Error('Jules is down');
    slots.halt(stop, run.signal);
    release();
    expect(() => slots.throwIfHalted(run.signal)).toThrow(stop); // not cleared by being idle
    const resume = new AbortController();
    expect(() => slots.throwIfHalted(resume.signal)).not.toThrow();
    expect(slots.halted).toBeUndefined();
  });
});
