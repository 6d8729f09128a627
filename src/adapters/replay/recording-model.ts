import { mkdir, readdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { ApiCallError, MakerError, redactSecrets } from '../../core/errors.js';
import type { GenerateRequest, GenerateResult, LanguageModel } from '../../ports/language-model.js';
import {
  EXCHANGE_VERSION,
  exchangeFileName,
  requestContent,
  requestHash,
  type Exchange,
} from './exchange.js';

/**
 * Records every exchange with the model it wraps as one JSON file in `dir` (request content, the
 * response or the error, when it started and how long it took), then passes the result on
 * unchanged. Keys never reach the port's requests; the configured `secrets` are also redacted
 * from what is written. A recording that cannot be written fails the call: a recording with gaps
 * would not replay.
 */
export class RecordingModel implements LanguageModel {
  readonly id: string;
  readonly #inner: LanguageModel;
  readonly #dir: string;
  readonly #secrets: readonly string[];
  readonly #now: () => Date;
  #seen: Promise<Map<string, number>> | undefined;

  constructor(
    inner: LanguageModel,
    dir: string,
    options: { secrets?: readonly string[]; now?: () => Date } = {},
  ) {
    this.#inner = inner;
    this.id = inner.id;
    this.#dir = dir;
    this.#secrets = options.secrets ?? [];
    this.#now = options.now ?? (() => new Date());
  }

  async generate(request: GenerateRequest): Promise<GenerateResult> {
    const hash = requestHash(request);
    const seen = await this.#occurrences();
    const occurrence = seen.get(hash) ?? 0;
    seen.set(hash, occurrence + 1);
    const started = this.#now();
    const t0 = performance.now();
    let result: GenerateResult | undefined;
    let failure: unknown;
    try {
      result = await this.#inner.generate(request);
    } catch (error) {
      failure = error;
    }
    const exchange: Exchange = {
      $schemaVersion: EXCHANGE_VERSION,
      hash,
      occurrence,
      model: this.id,
      request: requestContent(request),
      ...(result === undefined
        ? {
            error: {
              code: failure instanceof MakerError ? failure.code : 'error',
              message: failure instanceof Error ? failure.message : String(failure),
              status: failure instanceof ApiCallError ? (failure.status ?? null) : null,
            },
          }
        : {
            response: {
              text: result.text,
              finishReason: result.finishReason ?? null,
              outputTokens: result.outputTokens ?? null,
              inputTokens: result.inputTokens ?? null,
              ...(result.thoughtTokens === undefined
                ? {}
                : { thoughtTokens: result.thoughtTokens }),
              ...((result.requests ?? 1) > 1 ? { requests: result.requests } : {}),
            },
          }),
      startedAt: started.toISOString(),
      ms: Math.round(performance.now() - t0),
    };
    const text = redactSecrets(JSON.stringify(exchange, null, 1), this.#secrets);
    await writeFile(join(this.#dir, exchangeFileName(hash, occurrence)), `${text}\n`);
    if (result === undefined) throw failure;
    return result;
  }

  /** Occurrences already in the directory (a resumed run appends to its recording). */
  #occurrences(): Promise<Map<string, number>> {
    this.#seen ??= (async () => {
      await mkdir(this.#dir, { recursive: true });
      const counts = new Map<string, number>();
      for (const name of await readdir(this.#dir)) {
        const m = /^([0-9a-f]{64})-(\d+)\.json$/.exec(name);
        if (m === null) continue;
        const hash = m[1] as string;
        counts.set(hash, Math.max(counts.get(hash) ?? 0, Number(m[2]) + 1));
      }
      return counts;
    })();
    return this.#seen;
  }
}
