import { createInterface } from 'node:readline';
import { z } from 'zod';
import type { ModelWaits } from '../../core/deadlines.js';
import { AbortedError } from '../../core/errors.js';
import { ModelTransportError } from '../../core/model-errors.js';
import { waitWords } from '../../core/rate-limits.js';
import type { GenerateResult } from '../../ports/language-model.js';
import { spawnGroup, type GroupChild } from './process-group.js';
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

type StreamEvent = z.infer<typeof eventSchema>;
type ResultEvent = Extract<StreamEvent, { type: 'result' }>;

interface HeadlessCallOptions {
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
}

/** What the process said so far, and when (`Date.now()` times). */
interface Heard {
  /** Its last 8,000 characters. */
  stderr: string;
  sessionId: string | undefined;
  answer: string;
  result: ResultEvent | undefined;
  errorWords: string;
  readonly started: number;
  /** When its session began (`init`): the request's deadline runs from then. */
  answering: number | undefined;
  firstAnswerAt: number | undefined;
  /** Its last byte, on stdout or stderr. */
  heardAt: number;
}

export async function headlessCall(options: HeadlessCallOptions): Promise<GenerateResult> {
  const now = options.now ?? (() => new Date());
  if (options.signal?.aborted === true) throw new AbortedError(options.signal.reason);
  const child = await startGemini(options);
  let stopped: Error | undefined;
  const stop = (error: Error) => {
    stopped ??= error;
    child.kill();
  };
  const heard = listen(child, stop);
  child.stdin.end(options.text);
  const timer = watchdog(heard, options.waits, options.deadlineMs, stop);
  const onAbort = () => stop(new AbortedError(options.signal?.reason));
  options.signal?.addEventListener('abort', onAbort, { once: true });
  const exit = await child.exited.finally(() => {
    clearInterval(timer);
    options.signal?.removeEventListener('abort', onAbort);
  });
  if (stopped !== undefined) throw stopped;
  if (heard.result?.status === 'success') return answer(heard, heard.result, options.dir.home);
  const said = [heard.result?.error?.message ?? '', heard.errorWords, heard.stderr].join('\n');
  if (exit.code === 0) throw saidError(said, undefined, now());
  throw exitError(options.command, exit.code, said, now());
}

/** Starts `gemini` headless in the call's directory, the system prompt in a file of its own. */
async function startGemini(
  options: Pick<HeadlessCallOptions, 'command' | 'model' | 'dir' | 'env' | 'system'>,
): Promise<GroupChild> {
  const systemFile = await options.dir.systemFile(options.system);
  const args = [...commonArgs(options.model, options.dir), '-o', 'stream-json', '-p', PROMPT_TAIL];
  return spawnGroup(options.command, args, {
    cwd: options.dir.work,
    env: childEnv(options.env, options.dir, systemFile),
  });
}

/** Follows the process's output into what it said; a login prompt ends it at once. */
function listen(child: GroupChild, stop: (error: Error) => void): Heard {
  const started = Date.now();
  const heard: Heard = {
    stderr: '',
    sessionId: undefined,
    answer: '',
    result: undefined,
    errorWords: '',
    started,
    answering: undefined,
    firstAnswerAt: undefined,
    heardAt: started,
  };
  const onOutput = (text: string) => {
    heard.heardAt = Date.now();
    if (demandsLogin(text) || demandsLogin(heard.stderr)) stop(signInError(heard.stderr || text));
  };
  child.stderr.on('data', (chunk: Buffer) => {
    heard.stderr = (heard.stderr + chunk.toString()).slice(-8000);
    onOutput(chunk.toString());
  });
  child.stdout.on('data', (chunk: Buffer) => onOutput(chunk.toString()));
  createInterface({ input: child.stdout }).on('line', (line) => {
    const event = parseEvent(line);
    if (event !== undefined) record(heard, event);
  });
  return heard;
}

/** The stream's event on `line`, if it is one. */
function parseEvent(line: string): StreamEvent | undefined {
  let json: unknown;
  try {
    json = JSON.parse(line);
  } catch {
    return undefined; // Not an event (a stray log line).
  }
  const event = eventSchema.safeParse(json);
  return event.success ? event.data : undefined;
}

function record(heard: Heard, e: StreamEvent): void {
  if (e.type === 'init') {
    heard.sessionId = e.session_id;
    heard.answering = Date.now();
  } else if (e.type === 'message' && e.role === 'assistant') {
    heard.firstAnswerAt ??= Date.now();
    heard.answer += e.content ?? '';
  } else if (e.type === 'result') heard.result = e;
  else if (e.type === 'error') heard.errorWords += `${e.message ?? ''}\n`;
}

/** Stops the call, checking often, once it overruns a wait. */
function watchdog(
  heard: Heard,
  waits: ModelWaits,
  deadlineMs: number,
  stop: (error: Error) => void,
): NodeJS.Timeout {
  return setInterval(
    () => {
      const overrun = overrunAt(heard, waits, deadlineMs, Date.now());
      if (overrun !== undefined) stop(overrun);
    },
    Math.min(1000, Math.max(50, waits.silenceMs / 4)),
  );
}

/**
 * The wait the call overran at `t`, if any: its start-up, then the request's deadline, or a
 * silence (a longer one before the answer's first byte).
 */
function overrunAt(
  heard: Heard,
  waits: ModelWaits,
  deadlineMs: number,
  t: number,
): Error | undefined {
  const { startupMs, silenceMs } = waits;
  if (heard.answering === undefined)
    return t - heard.started >= startupMs ? startupError(startupMs) : undefined;
  if (t - heard.answering >= deadlineMs)
    return new ModelTransportError(
      'gemini-cli',
      `Gemini CLI's model call failed: no complete answer within ${waitWords(deadlineMs)} (the deadline for a request this size).`,
    );
  const silence =
    heard.firstAnswerAt === undefined ? Math.max(silenceMs, waits.firstByteMs) : silenceMs;
  if (t - heard.heardAt >= silence)
    return new ModelTransportError(
      'gemini-cli',
      `Gemini CLI's model call failed: the answer stopped: nothing for ${waitWords(t - heard.heardAt)}.`,
    );
  return undefined;
}

/** A successful call's answer, its token counts from the session's recording when it has one. */
async function answer(heard: Heard, result: ResultEvent, home: string): Promise<GenerateResult> {
  const usage =
    heard.sessionId === undefined
      ? undefined
      : await takeSessionUsage(home, heard.sessionId).catch(() => undefined);
  const stats = result.stats;
  const thoughts =
    stats?.total_tokens === undefined
      ? undefined
      : stats.total_tokens - (stats.input_tokens ?? 0) - (stats.output_tokens ?? 0);
  return {
    text: heard.answer,
    finishReason: 'stop',
    inputTokens: usage?.inputTokens ?? stats?.input_tokens,
    outputTokens: usage?.outputTokens ?? stats?.output_tokens,
    thoughtTokens:
      usage?.thoughtTokens ?? (thoughts !== undefined && thoughts >= 0 ? thoughts : undefined),
  };
}
