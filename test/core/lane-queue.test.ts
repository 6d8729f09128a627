import { describe, expect, it } from 'vitest';
import { LaneQueue } from '../../src/core/lane-queue.js';

/** A task named `name` (what dequeue hands back is compared by identity). */
const task = (name: string) => Object.assign(() => Promise.resolve(name), { label: name });
const drain = (queue: LaneQueue) => {
  const out: string[] = [];
  for (let run = queue.dequeue(); run !== undefined; run = queue.dequeue())
    out.push((run as unknown as { label: string }).label);
  return out;
};

describe('LaneQueue', () => {
  // Proves: the semaphore's queue keeps p-queue's order (higher priority first, arrival order within
  // one), and a removed entry is skipped, not counted, and let go of (its work is unreachable).
  it('serves higher priorities first, each lane in arrival order', () => {
    const queue = new LaneQueue();
    queue.enqueue(task('a'), { id: '1', priority: 0 });
    queue.enqueue(task('b'), { id: '2', priority: 1 });
    queue.enqueue(task('c'), { id: '3', priority: 0 });
    queue.enqueue(task('d'), { id: '4', priority: 1 });
    queue.enqueue(task('e'), { id: '5', priority: -1 });
    expect(queue.size).toBe(5);
    expect(
      queue.filter({ priority: 1 }).map((r) => (r as unknown as { label: string }).label),
    ).toEqual(['b', 'd']);
    expect(drain(queue)).toEqual(['b', 'd', 'a', 'c', 'e']);
    expect(queue.size).toBe(0);
  });

  it('skips removed entries, counts only those in line, and takes new ones after a drain', () => {
    const queue = new LaneQueue();
    for (let i = 0; i < 6; i++) queue.enqueue(task(`t${i}`), { id: String(i), priority: i % 2 });
    queue.remove('1');
    queue.remove('2');
    queue.remove('2'); // twice: once
    queue.remove('nope');
    expect(queue.size).toBe(4);
    expect(queue.filter({}).length).toBe(4);
    expect(drain(queue)).toEqual(['t3', 't5', 't0', 't4']);
    queue.enqueue(task('late'), { id: 'late' });
    expect(queue.size).toBe(1);
    expect(drain(queue)).toEqual(['late']);
  });

  it('sweeps many removed entries away while others wait, keeping the order of the rest', () => {
    const queue = new LaneQueue();
    const n = 5000;
    for (let i = 0; i < n; i++) queue.enqueue(task(`t${i}`), { id: String(i) });
    for (let i = 0; i < n; i++) if (i % 100 !== 0) queue.remove(String(i));
    expect(queue.size).toBe(n / 100);
    expect(drain(queue)).toEqual(Array.from({ length: n / 100 }, (_, i) => `t${i * 100}`));
  });

  it('moves an entry to another priority, and refuses an id not in line', () => {
    const queue = new LaneQueue();
    queue.enqueue(task('a'), { id: 'a' });
    queue.enqueue(task('b'), { id: 'b' });
    queue.setPriority('b', 5);
    expect(() => queue.setPriority('gone', 1)).toThrow(ReferenceError);
    expect(drain(queue)).toEqual(['b', 'a']);
  });
});
