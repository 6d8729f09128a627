import { readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { ApiCallError, ConfigError, MakerError } from '../../core/errors.js';
import type { GenerateRequest, GenerateResult, LanguageModel } from '../../ports/language-model.js';
import { exchangeSchema, requestHash, type Exchange } from './exchange.js';

/**
 * A model that answers from a recording ({@link RecordingModel}'s files) with no key and no
 * server: a request is matched by its content hash, and the nth identical request gets the nth
 * recorded answer (the last one again once they run out). A request with no recording fails with
 * `replay-missing`, naming its draw and the start of its prompt. A recorded failure is thrown again.
 */
export class ReplayModel implements LanguageModel {
  readonly id: string;
  readonly #dir: string;
  #loaded: Promise<Map<string, Exchange[]>> | undefined;
  readonly #served = new Map<string, number>();

  constructor(dir: string, id = 'replay') {
    this.#dir = dir;
    this.id = id;
  }

  async generate(request: GenerateRequest): Promise<GenerateResult> {
    const byHash = await this.#load();
    const hash = requestHash(request);
    const recorded = byHash.get(hash);
    if (recorded === undefined || recorded.length === 0)
      throw new MakerError(
        'replay-missing',
        `The recording in ${this.#dir} has no answer for this request (draw ${request.draw ?? 'untagged'}, hash ${hash.slice(0, 16)}, prompt starting ${JSON.stringify(request.prompt.slice(0, 120))}): the run has left the recorded path.`,
      );
    const n = this.#served.get(hash) ?? 0;
    this.#served.set(hash, n + 1);
    const exchange = recorded[Math.min(n, recorded.length - 1)] as Exchange;
    if (exchange.response === undefined)
      throw new ApiCallError('replay', exchange.error?.message ?? 'A recorded call failed.', {
        ...(exchange.error?.status == null ? {} : { status: exchange.error.status }),
      });
    const r = exchange.response;
    return {
      text: r.text,
      ...(r.finishReason === null ? {} : { finishReason: r.finishReason }),
      ...(r.outputTokens === null ? {} : { outputTokens: r.outputTokens }),
      ...(r.inputTokens === null ? {} : { inputTokens: r.inputTokens }),
      ...(r.thoughtTokens === undefined ? {} : { thoughtTokens: r.thoughtTokens }),
      ...(r.requests === undefined ? {} : { requests: r.requests }),
    };
  }

  #load(): Promise<Map<string, Exchange[]>> {
    this.#loaded ??= loadRecording(this.#dir);
    return this.#loaded;
  }
}

/** Every exchange in `dir` by request hash, in occurrence order; a bad file is named. */
export async function loadRecording(dir: string): Promise<Map<string, Exchange[]>> {
  let names: string[];
  try {
    names = await readdir(dir);
  } catch (error) {
    throw new ConfigError(
      `Cannot read the recording ${dir}: ${(error as Error).message}. Give the directory MAKER_RECORD wrote.`,
    );
  }
  const byHash = new Map<string, Exchange[]>();
  for (const name of names.filter((n) => /^[0-9a-f]{64}-\d+\.json$/.test(n))) {
    let parsed;
    try {
      parsed = exchangeSchema.safeParse(JSON.parse(await readFile(join(dir, name), 'utf8')));
    } catch (error) {
      throw new ConfigError(`${join(dir, name)} is not JSON: ${(error as Error).message}`);
    }
    if (!parsed.success)
      throw new ConfigError(
        `${join(dir, name)} is not a recorded exchange: ${parsed.error.issues[0]?.message ?? ''}`,
      );
    const list = byHash.get(parsed.data.hash) ?? [];
    list.push(parsed.data);
    byHash.set(parsed.data.hash, list);
  }
  if (byHash.size === 0)
    throw new ConfigError(`${dir} holds no recorded exchanges (files <hash>-<n>.json).`);
  for (const list of byHash.values()) list.sort((a, b) => a.occurrence - b.occurrence);
  return byHash;
}
