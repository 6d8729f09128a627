import type { EngineEvent } from '../core/events.js';

export type { EngineEvent, EngineEventInput } from '../core/events.js';

/**
 * A multi-subscriber async-iterable stream of events. Each subscriber gets every event published
 * after it subscribed; a slow or broken subscriber never blocks the engine.
 */
export class EventHub {
  readonly #subscribers = new Set<{ push: (event: EngineEvent) => void; close: () => void }>();

  publish(event: EngineEvent): void {
    for (const subscriber of this.#subscribers) {
      try {
        subscriber.push(event);
      } catch {
        // Observers cannot break the run.
      }
    }
  }

  /**
   * Calls `observer` with every event published from now on, synchronously, until the function
   * returned is called. An observer that throws breaks neither the run nor other observers.
   */
  observe(observer: (event: EngineEvent) => void): () => void {
    const subscriber = { push: observer, close: () => undefined };
    this.#subscribers.add(subscriber);
    return () => this.#subscribers.delete(subscriber);
  }

  /** Ends every open iteration (after its buffered events). */
  close(): void {
    for (const subscriber of this.#subscribers) subscriber.close();
    this.#subscribers.clear();
  }

  subscribe(signal?: AbortSignal): AsyncIterable<EngineEvent> {
    const buffer: EngineEvent[] = [];
    let wake: (() => void) | undefined;
    let closed = false;
    const subscriber = {
      push: (event: EngineEvent) => {
        buffer.push(event);
        wake?.();
      },
      close: () => {
        closed = true;
        wake?.();
      },
    };
    this.#subscribers.add(subscriber);
    signal?.addEventListener('abort', () => {
      this.#subscribers.delete(subscriber);
      subscriber.close();
    });
    const unsubscribe = () => this.#subscribers.delete(subscriber);
    return {
      async *[Symbol.asyncIterator]() {
        try {
          for (;;) {
            while (buffer.length > 0) yield buffer.shift() as EngineEvent;
            if (closed) return;
            await new Promise<void>((resolve) => (wake = resolve));
            wake = undefined;
          }
        } finally {
          unsubscribe();
        }
      },
    };
  }
}
