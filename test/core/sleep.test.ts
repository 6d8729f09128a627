import { getEventListeners } from 'node:events';
import { describe, expect, it } from 'vitest';
import { AbortedError } from '../../src/core/errors.js';
import { abortableSleep } from '../../src/core/sleep.js';

describe('abortableSleep', () => {
  it('leaves no abort listener behind when its timer fires', async () => {
    const controller = new AbortController();
    for (let i = 0; i < 100; i++) await abortableSleep(0, controller.signal);
    expect(getEventListeners(controller.signal, 'abort')).toHaveLength(0);
  });

  it('rejects with AbortedError when the signal aborts, and clears its timer', async () => {
    const controller = new AbortController();
    const sleeping = abortableSleep(60_000, controller.signal);
    controller.abort(new Error('stop'));
    await expect(sleeping).rejects.toBeInstanceOf(AbortedError);
    await expect(abortableSleep(1, controller.signal)).rejects.toThrow(/stop/);
  });
});
