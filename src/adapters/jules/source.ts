import { AbortedError, ConfigError } from '../../core/errors.js';
import { abortableSleep } from '../../core/sleep.js';
import type { WaitReporter } from '../../ports/waits.js';
import type { WorkerHooks } from '../../ports/worker.js';
import { JulesError, type JulesClient } from './client.js';

/**
 * The repository as a Jules source, checked once per worker. A repository Jules cannot see becomes a
 * question (connect it, at the URL given, or stop); MAKER then looks again, waiting with backoff.
 */
export class SourceGate {
  readonly #client: JulesClient;
  readonly #name: string | (() => Promise<string>);
  readonly #sleep: (ms: number, signal?: AbortSignal) => Promise<void>;
  readonly #retryMs: number;
  #source: Promise<string> | undefined;
  /** A plain check started ahead of sampling (by `probe`); `checked` takes its answer. */
  #probe: Promise<string> | undefined;

  constructor(
    client: JulesClient,
    name: string | (() => Promise<string>),
    options: { sleep?: (ms: number, signal?: AbortSignal) => Promise<void>; retryMs?: number } = {},
  ) {
    this.#client = client;
    this.#name = name;
    this.#sleep = options.sleep ?? abortableSleep;
    this.#retryMs = options.retryMs ?? 15_000;
  }

  #resolveName(): Promise<string> {
    return typeof this.#name === 'string' ? Promise.resolve(this.#name) : this.#name();
  }

  /** A plain check ahead of sampling (no questions): a success spares `checked` the request. */
  async probe(signal?: AbortSignal): Promise<void> {
    if (this.#source !== undefined || this.#probe !== undefined) return;
    const probe = (async () => {
      const name = await this.#resolveName();
      await this.#client.getSource(name, { signal });
      return name;
    })();
    this.#probe = probe;
    probe.catch(() => {
      if (this.#probe === probe) this.#probe = undefined;
    });
    await probe;
  }

  /**
   * The source, checked once. A repository Jules cannot see becomes a question: connect it (at the
   * URL given), then MAKER checks again, waiting with backoff until it appears or the person stops.
   */
  checked(
    signal: AbortSignal | undefined,
    hooks: Pick<WorkerHooks, 'choose'> & { wait?: WaitReporter | undefined },
  ): Promise<string> {
    this.#source ??= (async () => {
      // A probe under way (it may be waiting out an outage) is awaited only until `signal`,
      // whose end the next request then reports.
      const probed = await abortable(this.#probe, signal).catch(() => undefined);
      if (probed !== undefined) return probed;
      const name = await this.#resolveName();
      const repo = name.replace(/^sources\/github\//, '');
      const visible = async () => {
        try {
          await this.#client.getSource(name, { signal, onWait: hooks.wait });
          return true;
        } catch (error) {
          if (error instanceof JulesError && error.kind === 'not-found') return false;
          throw error;
        }
      };
      for (let attempt = 0; ; attempt++) {
        if (await visible()) return name;
        // After "connected": a second look a little later (new repositories take a while to show).
        if (attempt > 0) {
          const delay = Math.min(this.#retryMs * 2 ** (attempt - 1), 5 * 60_000);
          const end = hooks.wait?.({
            service: 'jules',
            reason: `Jules does not list ${repo} yet; looking again (a newly connected repository takes a while to show)`,
            until: new Date(Date.now() + delay),
          });
          try {
            await this.#sleep(delay, signal);
          } finally {
            end?.();
          }
          if (await visible()) return name;
        }
        const how = `Jules cannot see ${repo} (${name}). Connect it: open https://jules.google.com, add the repository (install the Jules GitHub app on it at https://github.com/apps/google-labs-jules), then continue.`;
        if (hooks.choose === undefined) throw new ConfigError(`${how} Then run maker resume.`);
        const choice = await hooks.choose({
          id: `source-${attempt}`,
          scope: 'run',
          kind: 'select',
          prompt: how,
          options: [
            { id: 'connected', label: 'Connected: check again and continue' },
            { id: 'stop', label: 'Stop the run' },
          ],
          auto: 'connected',
        });
        if (choice !== 'connected') throw new ConfigError(`${how} Then run maker resume.`);
      }
    })();
    this.#source.catch(() => (this.#source = undefined));
    return this.#source;
  }
}

/** `promise`'s outcome, or an {@link AbortedError} as soon as `signal` aborts. */
function abortable<T>(promise: Promise<T> | undefined, signal: AbortSignal | undefined) {
  if (promise === undefined || signal === undefined) return Promise.resolve(promise);
  if (signal.aborted) return Promise.reject(new AbortedError(signal.reason));
  return new Promise<T>((resolve, reject) => {
    const onAbort = () => reject(new AbortedError(signal.reason));
    signal.addEventListener('abort', onAbort, { once: true });
    promise.finally(() => signal.removeEventListener('abort', onAbort)).then(resolve, reject);
  });
}
