import type { StateStore } from '../../ports/state-store.js';

/** What a {@link CountingStore} measured. */
export interface SaveCounts {
  readonly saves: number;
  /** Wall time from each save's call to its completion, summed (saves never overlap: the engine queues them). */
  readonly wallMs: number;
  /**
   * Process CPU time (user + system) while each save ran synchronously: finding and serialising
   * what changed (or the whole state, for a snapshot), before the file write goes to the I/O
   * threads. The write's own CPU is not in it.
   */
  readonly cpuMs: number;
  /** Bytes the store wrote (log appends and snapshots). */
  readonly bytes: number;
}

/** A store that counts the bytes it writes. */
export interface ByteCountingStore<T> extends StateStore<T> {
  readonly bytesWritten: number;
}

/**
 * A {@link StateStore} decorator for benchmarks: counts saves (and clean-stop compactions), their
 * time and the bytes they write.
 */
export class CountingStore<T> implements StateStore<T> {
  #saves = 0;
  #wallMs = 0;
  #cpuMs = 0;
  #bytes = 0;

  constructor(private readonly inner: ByteCountingStore<T>) {}

  get path(): string {
    return this.inner.path;
  }

  load(): Promise<T> {
    return this.inner.load();
  }

  save(document: T, changed?: ReadonlySet<object>): Promise<void> {
    return this.#count(() => this.inner.save(document, changed));
  }

  compact(document: T): Promise<void> {
    return this.#count(() => this.inner.compact?.(document) ?? this.inner.save(document));
  }

  async #count(write: () => Promise<void>): Promise<void> {
    const started = performance.now();
    const cpu = process.cpuUsage();
    const before = this.inner.bytesWritten;
    const pending = write();
    const { user, system } = process.cpuUsage(cpu);
    this.#cpuMs += (user + system) / 1000;
    await pending;
    this.#wallMs += performance.now() - started;
    this.#saves += 1;
    this.#bytes += this.inner.bytesWritten - before;
  }

  counts(): SaveCounts {
    return { saves: this.#saves, wallMs: this.#wallMs, cpuMs: this.#cpuMs, bytes: this.#bytes };
  }
}
