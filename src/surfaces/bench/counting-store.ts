import { statSync } from 'node:fs';
import type { StateStore } from '../../ports/state-store.js';

/** What a {@link CountingStore} measured. */
export interface SaveCounts {
  readonly saves: number;
  /** Wall time from each save's call to its completion, summed (saves never overlap: the engine queues them). */
  readonly wallMs: number;
  /**
   * Process CPU time (user + system) while each save ran synchronously: serialising the whole
   * state to JSON, before the file write goes to the I/O threads. The write's own CPU is not in it.
   */
  readonly cpuMs: number;
  /** Bytes written: the file's size after each save (each save rewrites the whole file). */
  readonly bytes: number;
}

/**
 * A {@link StateStore} decorator for benchmarks: counts saves, their time and the bytes they
 * write. The file's size is read after each save completes, outside the timed part.
 */
export class CountingStore<T> implements StateStore<T> {
  #saves = 0;
  #wallMs = 0;
  #cpuMs = 0;
  #bytes = 0;

  constructor(
    private readonly inner: StateStore<T>,
    private readonly sizeOf: (path: string) => number = (path) => statSync(path).size,
  ) {}

  get path(): string {
    return this.inner.path;
  }

  load(): Promise<T> {
    return this.inner.load();
  }

  async save(document: T): Promise<void> {
    const started = performance.now();
    const cpu = process.cpuUsage();
    const pending = this.inner.save(document);
    const { user, system } = process.cpuUsage(cpu);
    this.#cpuMs += (user + system) / 1000;
    await pending;
    this.#wallMs += performance.now() - started;
    this.#saves += 1;
    this.#bytes += this.sizeOf(this.inner.path);
  }

  counts(): SaveCounts {
    return { saves: this.#saves, wallMs: this.#wallMs, cpuMs: this.#cpuMs, bytes: this.#bytes };
  }
}
