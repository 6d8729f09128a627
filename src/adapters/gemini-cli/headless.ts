import { createInterface } from 'node:readline';
import { z } from 'zod';
import type { ModelWaits } from '../../core/deadlines.js';
import { AbortedError } from '../../core/errors.js';
import { ModelTransportError } from '../../core/model-errors.js';
import { waitWords } from '../../core/rate-limits.js';
import type { GenerateResult } from '../../ports/language-model.js';
import { spawnGroup } from './process-group.js';
import { demandsLogin, exitError, saidError, signInError, startupError } from './said.js';
import { childEnv, commonArgs, type CallDirectory } from './setup.js';
import { takeSessionUsage } from './usage.js';

/**
 * One call as one headless `gemini -p … -o stream-json` process: the request on stdin (no
 * argument-length limit), the answer as it streams, its token counts from Gemini CLI's recording
 * (hidden reasoning included). The process has a start-up deadline, the request's deadline and a
 * silence watchdog; a login prompt or a long quota wait ends it at once.
 */

const eventSchema = z.discriminatedUnion('type', [
  z.object({ type: z.literal('init'), session_id: z.string().optional() }).loose(),
  z
    .object({
      type: z.literal('message'),
      role: z.string().optional(),
      content: z.string().optional(),
    })
    .loose(),
  z
    .object({
      type: z.literal('result'),
      status: z.string().optional(),
      error: z.object({ message: z.string().optional() }).loose().optional(),
      stats: z
        .object({
          total_tokens: z.number().optional(),
          input_tokens: z.number().optional(),
          output_tokens: z.number().optional(),
        })
        .loose()
        .optional(),
    })
    .loose(),
  z.object({ type: z.literal('error'), message: z.string().optional() }).loose(),
]);

/** Added after the request on stdin (`-p` is appended to stdin): it only marks the end. */
const PROMPT_TAIL = '(End of the request.)';

// eslint-disable-next-line max-lines-per-function -- over 80 lines: to be split by job (#40)
export async function headlessCall(options: {
  command: string;
  model: string;
  dir: CallDirectory;
  env: Readonly<Record<string, string | undefined>>;
  system: string;
  text: string;
  signal?: AbortSignal | undefined;
  waits: ModelWaits;
  /** The request's deadline once the process started (ms). */
  deadlineMs: number;
  now?: () => Date;
}): Promise<GenerateResult> {
  const now = options.now ?? (() => new Date());
  if (options.signal?.aborted === true) throw new AbortedError(options.signal.reason);
  const systemFile = await options.dir.systemFile(options.system);
  const args = [...commonArgs(options.model, options.dir), '-o', 'stream-json', '-p', PROMPT_TAIL];
  const child = spawnGroup(options.command, args, {
    cwd: options.dir.work,
    env: childEnv(options.env, options.dir, systemFile),
  });
  let stderr = '';
  let sessionId: string | undefined;
  let answer = '';
  let result: Extract<z.infer<typeof eventSchema>, { type: 'result' }> | undefined;
  let errorWords = '';
  let stopped: Error | undefined;
  const stop = (error: Error) => {
    stopped ??= error;
    child.kill();
  };
  const started = Date.now();
  let answering: number | undefined;
  let firstAnswerAt: number | undefined;
  let heardAt = started;
  const heard = (text: string) => {
    heardAt = Date.now();
    if (demandsLogin(text) || demandsLogin(stderr)) stop(signInError(stderr || text));
  };
  child.stderr.on('data', (chunk: Buffer) => {
    stderr = (stderr + chunk.toString()).slice(-8000);
    heard(chunk.toString());
  });
  child.stdout.on('data', (chunk: Buffer) => heard(chunk.toString()));
  createInterface({ input: child.stdout }).on('line', (line) => {
    let json: unknown;
    try {
      json = JSON.parse(line);
    } catch {
      return; // Not an event (a stray log line).
    }
    const event = eventSchema.safeParse(json);
    if (!event.success) return;
    const e = event.data;
    if (e.type === 'init') {
      sessionId = e.session_id;
      answering = Date.now();
    } else if (e.type === 'message' && e.role === 'assistant') {
      firstAnswerAt ??= Date.now();
      answer += e.content ?? '';
    } else if (e.type === 'result') result = e;
    else if (e.type === 'error') errorWords += `${e.message ?? ''}\n`;
  });
  child.stdin.end(options.text);
  const { startupMs, silenceMs } = options.waits;
  const timer = setInterval(
    () => {
      const t = Date.now();
      if (answering === undefined && t - started >= startupMs) stop(startupError(startupMs));
      else if (answering !== undefined && t - answering >= options.deadlineMs)
        stop(
          new ModelTransportError(
            'gemini-cli',
            `Gemini CLI's model call failed: no complete answer within ${waitWords(options.deadlineMs)} (the deadline for a request this size).`,
          ),
        );
      else if (
        answering !== undefined &&
        t - heardAt >=
          (firstAnswerAt === undefined ? Math.max(silenceMs, options.waits.firstByteMs) : silenceMs)
      )
        stop(
          new ModelTransportError(
            'gemini-cli',
            `Gemini CLI's model call failed: the answer stopped: nothing for ${waitWords(t - heardAt)}.`,
          ),
        );
    },
    Math.min(1000, Math.max(50, silenceMs / 4)),
  );
  const onAbort = () => stop(new AbortedError(options.signal?.reason));
  options.signal?.addEventListener('abort', onAbort, { once: true });
  const exit = await child.exited.finally(() => {
    clearInterval(timer);
    options.signal?.removeEventListener('abort', onAbort);
  });
  if (stopped !== undefined) throw stopped;
  if (result?.status === 'success') {
    const usage =
      sessionId === undefined
        ? undefined
        : await takeSessionUsage(options.dir.home, sessionId).catch(() => undefined);
    const stats = result.stats;
    const thoughts =
      stats?.total_tokens === undefined
        ? undefined
        : stats.total_tokens - (stats.input_tokens ?? 0) - (stats.output_tokens ?? 0);
    return {
      text: answer,
      finishReason: 'stop',
      inputTokens: usage?.inputTokens ?? stats?.input_tokens,
      outputTokens: usage?.outputTokens ?? stats?.output_tokens,
      thoughtTokens:
        usage?.thoughtTokens ?? (thoughts !== undefined && thoughts >= 0 ? thoughts : undefined),
    };
  }
  const said = [result?.error?.message ?? '', errorWords, stderr].join('\n');
  if (exit.code === 0) throw saidError(said, undefined, now());
  throw exitError(options.command, exit.code, said, now());
}
