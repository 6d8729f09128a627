import { ConfigError, makeRedactor, type Redactor } from '../../core/errors.js';
import { secretsOf, type Env } from '../../app/env.js';
import type { RunManager } from './run-manager.js';
import type { Runs } from './server.js';

/**
 * The runs of a server whose engine is loaded on the first call that needs it: until then (the
 * handshake, `tools/list`, `maker_estimate`) none of the engine, git, GitHub, Jules or Gemini code
 * is compiled. `load` is called at most once; if it fails, the next call tries again.
 */
export class LazyRuns implements Runs {
  readonly #load: () => Promise<RunManager>;
  readonly #redact: Redactor;
  #manager: Promise<RunManager> | undefined;
  #loaded: RunManager | undefined;

  constructor(load: () => Promise<RunManager>, env: Env) {
    this.#load = load;
    this.#redact = makeRedactor(secretsOf(env));
  }

  /** The loaded manager's redactor, or before loading one over the same secrets. */
  readonly redact: Redactor = (text) => (this.#loaded?.redact ?? this.#redact)(text);

  /** Whether the engine has been loaded (for diagnostics and tests). */
  get loaded(): boolean {
    return this.#loaded !== undefined;
  }

  #manage(): Promise<RunManager> {
    this.#manager ??= this.#load().then(
      (manager) => (this.#loaded = manager),
      (error: unknown) => {
        this.#manager = undefined;
        throw new ConfigError(
          `MAKER could not load its engine: ${error instanceof Error ? error.message : String(error)}. If files of the extension are missing, reinstall it.`,
        );
      },
    );
    return this.#manager;
  }

  start: RunManager['start'] = async (...args) => (await this.#manage()).start(...args);
  wait: RunManager['wait'] = async (...args) => (await this.#manage()).wait(...args);
  run: RunManager['run'] = async (...args) => (await this.#manage()).run(...args);
  answer: RunManager['answer'] = async (...args) => (await this.#manage()).answer(...args);
  resume: RunManager['resume'] = async (...args) => (await this.#manage()).resume(...args);
  cancel: RunManager['cancel'] = async (...args) => (await this.#manage()).cancel(...args);
  viewUrl: RunManager['viewUrl'] = async (...args) => (await this.#manage()).viewUrl(...args);

  /** Closes the manager if one was loaded (or is loading); otherwise there is nothing to close. */
  async close(): Promise<void> {
    if (this.#manager === undefined) return;
    await (await this.#manager.catch(() => undefined))?.close();
  }
}
