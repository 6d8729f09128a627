/**
 * How long MAKER waits on a model, so that no wait is endless: every request gets a deadline from
 * the model's expected latency and the request's size, and a silence watchdog ends a request that
 * stopped sending (no byte for `silenceMs`) as a transport failure, retried like any other. Start-up
 * (a `gemini` process signing in) has its own deadline.
 *
 * The defaults keep every failure within 30 s of its cause, said: a `gemini` that hangs starting
 * is stopped after 20 s (a real one, signing in, answers in about 3 s on an idle machine and 7 to
 * 12 s on a loaded two-core one, as the end-to-end tests measure: 20 s is room for both, and for
 * MAKER's own second or two before the message); an answer silent for 20 s is retried, and the
 * retry said at once.
 */
export interface ModelWaits {
  /** The longest wait for a `gemini` process to start and sign in (ms). */
  readonly startupMs: number;
  /** What every request is allowed before its answer's size counts: the first byte's wait (ms). */
  readonly firstByteMs: number;
  /** The slowest pace an answer is allowed to stream at (tokens per second). */
  readonly tokensPerSecond: number;
  /**
   * No byte for this long is a transport failure (ms): once the answer began, or, where the model's
   * thinking streams too (Gemini CLI's ACP mode), from the request on.
   */
  readonly silenceMs: number;
}

export const DEFAULT_MODEL_WAITS: ModelWaits = {
  startupMs: 20_000,
  firstByteMs: 60_000,
  tokensPerSecond: 20,
  silenceMs: 20_000,
};

/** An answer's size when the request sets none: a long answer with a thinking model's reasoning. */
const UNCAPPED_OUTPUT_TOKENS = 16_384;

/** Input a model reads per second before it answers (prefill): far below any real model's pace. */
const INPUT_TOKENS_PER_SECOND = 2_000;

/**
 * The deadline of one request (ms): the first byte's allowance, the time to read its prompt, and
 * the time to write the most it may answer (its cap plus the thinking room its adapter adds) at the
 * slowest allowed pace. A four-kilobyte prompt capped at 4,096 tokens gets 60 + 0.5 + 205 s.
 */
export function requestDeadlineMs(
  request: {
    readonly promptChars: number;
    readonly maxOutputTokens?: number | undefined;
    readonly thinkingRoom?: number | undefined;
  },
  waits: ModelWaits,
): number {
  const inputTokens = request.promptChars / 4;
  const outputTokens =
    (request.maxOutputTokens ?? UNCAPPED_OUTPUT_TOKENS) + (request.thinkingRoom ?? 0);
  return Math.round(
    waits.firstByteMs +
      (inputTokens / INPUT_TOKENS_PER_SECOND) * 1000 +
      (outputTokens / waits.tokensPerSecond) * 1000,
  );
}

/** The settings that change the waits (seconds), for people whose model is slower or faster. */
export const MODEL_WAIT_SETTINGS = {
  startupMs: 'MAKER_GEMINI_START_S',
  firstByteMs: 'MAKER_MODEL_FIRST_BYTE_S',
  silenceMs: 'MAKER_MODEL_SILENCE_S',
} as const;

/**
 * The waits a setting of {@link MODEL_WAIT_SETTINGS} changes (whole seconds, 1 to 86,400), and the
 * problems of those that are not whole seconds (named, so a typo never passes silently).
 */
export function modelWaitsFrom(read: (name: string) => string): {
  waits: ModelWaits;
  problems: string[];
} {
  const problems: string[] = [];
  const waits: { -readonly [K in keyof ModelWaits]: number } = { ...DEFAULT_MODEL_WAITS };
  for (const [key, name] of Object.entries(MODEL_WAIT_SETTINGS) as [
    keyof typeof MODEL_WAIT_SETTINGS,
    string,
  ][]) {
    const value = read(name).trim();
    if (value === '') continue;
    if (/^[1-9]\d{0,4}$/.test(value) && Number(value) <= 86_400) waits[key] = Number(value) * 1000;
    else problems.push(`${name}=${value} is not a number of seconds (1 to 86400).`);
  }
  return { waits, problems };
}
