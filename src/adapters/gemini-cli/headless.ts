import { spawn } from 'node:child_process';
import { z } from 'zod';
import { AbortedError, ApiCallError } from '../../core/errors.js';
import type { GenerateResult } from '../../ports/language-model.js';
import {
  childEnv,
  commonArgs,
  exitError,
  isDailyQuota,
  quotaStop,
  type CallDirectory,
} from './setup.js';

/**
 * One call as one headless `gemini -p … -o json` process: the request on stdin (no argument-length
 * limit), the answer and its token counts from the JSON it prints.
 */

const statsSchema = z
  .object({
    models: z
      .record(
        z.string(),
        z
          .object({
            tokens: z
              .object({
                prompt: z.number().optional(),
                input: z.number().optional(),
                candidates: z.number().optional(),
                thoughts: z.number().optional(),
              })
              .loose()
              .optional(),
          })
          .loose(),
      )
      .optional(),
  })
  .loose();

const outputSchema = z
  .object({
    response: z.string().optional(),
    stats: statsSchema.optional(),
    error: z
      .object({ type: z.string().optional(), message: z.string(), code: z.unknown().optional() })
      .loose()
      .optional(),
  })
  .loose();

/** Added after the request on stdin (`-p` is appended to stdin): it only marks the end. */
const PROMPT_TAIL = '(End of the request.)';

/** Tokens of every model the call used, from `stats.models`. */
export function tokensOf(stats: z.infer<typeof statsSchema> | undefined): {
  inputTokens: number | undefined;
  outputTokens: number | undefined;
  thoughtTokens: number | undefined;
} {
  const models = Object.values(stats?.models ?? {});
  if (models.length === 0)
    return { inputTokens: undefined, outputTokens: undefined, thoughtTokens: undefined };
  const sum = (pick: (t: NonNullable<(typeof models)[number]['tokens']>) => number | undefined) =>
    models.reduce((total, m) => total + (m.tokens === undefined ? 0 : (pick(m.tokens) ?? 0)), 0);
  return {
    inputTokens: sum((t) => t.prompt ?? t.input),
    outputTokens: sum((t) => t.candidates),
    thoughtTokens: sum((t) => t.thoughts),
  };
}

export async function headlessCall(options: {
  command: string;
  model: string;
  dir: CallDirectory;
  env: Readonly<Record<string, string | undefined>>;
  system: string;
  text: string;
  signal?: AbortSignal | undefined;
}): Promise<GenerateResult> {
  const systemFile = await options.dir.systemFile(options.system);
  const args = [...commonArgs(options.model, options.dir), '-o', 'json', '-p', PROMPT_TAIL];
  const child = spawn(options.command, args, {
    cwd: options.dir.work,
    env: childEnv(options.env, systemFile),
    stdio: ['pipe', 'pipe', 'pipe'],
    shell: false,
  });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
  child.stderr.on('data', (chunk: Buffer) => (stderr = (stderr + chunk.toString()).slice(-4000)));
  child.stdin.on('error', () => undefined);
  child.stdin.end(options.text);
  const onAbort = () => child.kill('SIGTERM');
  options.signal?.addEventListener('abort', onAbort, { once: true });
  const code = await new Promise<number | null>((resolve, reject) => {
    child.on('error', (error) =>
      reject(
        new ApiCallError('gemini-cli', `Could not start ${options.command}: ${error.message}.`, {
          isRetryable: false,
        }),
      ),
    );
    child.on('close', (exit) => resolve(exit));
  }).finally(() => options.signal?.removeEventListener('abort', onAbort));
  if (options.signal?.aborted === true) throw new AbortedError(options.signal.reason);
  let parsed: z.infer<typeof outputSchema> | undefined;
  try {
    parsed = outputSchema.parse(JSON.parse(stdout.slice(stdout.indexOf('{'))));
  } catch {
    parsed = undefined;
  }
  const said = parsed?.error?.message ?? lastLines(stderr);
  if (code !== 0 || parsed === undefined || parsed.error !== undefined) {
    if (code === 0 && isDailyQuota(said)) throw quotaStop(said);
    throw exitError(code === 0 ? 1 : code, said);
  }
  return {
    text: parsed.response ?? '',
    finishReason: 'stop',
    ...tokensOf(parsed.stats),
  };
}

function lastLines(text: string): string {
  return text.trim().split('\n').slice(-5).join(' ');
}
