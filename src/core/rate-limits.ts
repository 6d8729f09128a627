import { z } from 'zod';

/**
 * What a service's "too many requests" says, read the same way whichever door it came through: the
 * Gemini API's and Vertex AI's 429 bodies (Google's error envelope with `QuotaFailure`,
 * `RetryInfo`, `ErrorInfo` details), Code Assist's (the sign-in's service: "You have exhausted your
 * capacity on this model. Your quota will reset after 17h32m5s."), and the words Gemini CLI passes
 * on of them (an ACP error, its stderr, its JSON output). A limit that passes within minutes is
 * waited out; one that resets later (a day's) stops the run at once, resumable at the reset.
 */

/** How long a wait may be and still be waited out: gemini-cli draws the same line (300 s). */
export const LONGEST_WAITED_MS = 5 * 60_000;

/** The wait after a per-minute 429 that says no time (a minute's window, halfway). */
export const DEFAULT_RETRY_MS = 30_000;

export type QuotaAnswer =
  /** A limit per minute (or one that resets within {@link LONGEST_WAITED_MS}): wait, then retry. */
  | { readonly kind: 'per-minute'; readonly retryMs: number; readonly said: string }
  /** A daily limit: nothing passes before its reset (`resetMs` when the service said when). */
  | { readonly kind: 'daily'; readonly resetMs: number | undefined; readonly said: string };

const detailSchema = z
  .object({
    '@type': z.string().optional(),
    reason: z.string().optional(),
    retryDelay: z.string().optional(),
    metadata: z.record(z.string(), z.unknown()).optional(),
    violations: z.array(z.object({ quotaId: z.string().optional() }).loose()).optional(),
  })
  .loose();
const envelopeSchema = z
  .object({
    error: z
      .object({
        code: z.number().optional(),
        message: z.string().optional(),
        status: z.string().optional(),
        details: z.array(detailSchema).optional(),
      })
      .loose(),
  })
  .loose();

/** A duration as Google writes it: `27s`, `0.5s`, `1500ms`, `17h32m5s`, `161h39m41.3s`. */
export function parseDuration(text: string): number | undefined {
  const match =
    /^\s*(?:(\d+(?:\.\d+)?)h)?(?:(\d+(?:\.\d+)?)m(?!s))?(?:(\d+(?:\.\d+)?)s)?(?:(\d+(?:\.\d+)?)ms)?\s*$/.exec(
      text,
    );
  if (match === null || match.slice(1).every((part) => part === undefined)) return undefined;
  const [h, m, s, ms] = match.slice(1).map((part) => Number(part ?? 0)) as [
    number,
    number,
    number,
    number,
  ];
  return Math.round(((h * 60 + m) * 60 + s) * 1000 + ms);
}

/** The waits a text names, in the words the services and Gemini CLI use. */
const WAIT_PHRASES: readonly RegExp[] = [
  /reset after ([\dhms.]+)/i,
  /retry in ([\dhms.]+)/i,
  /retry after ([\dhms.]+)/i,
  /Retrying after (\d+ms)/,
];

const DAILY_WORDS = /daily quota|per[ _]?day|\bdaily\b|requests? a day/i;
const MINUTE_WORDS = /per[ _]?minute|RATE_LIMIT_EXCEEDED|rate limit/i;
const QUOTA_WORDS =
  /\b429\b|RESOURCE_EXHAUSTED|quota|rate limit|exhausted your capacity|too many requests/i;

/**
 * Reads a 429 or a quota error: `body` is a response body (Google's envelope, or an array of them
 * as Code Assist sometimes sends), `text` any words about it (an error message, a log line).
 * Undefined when neither is about a quota or rate limit.
 */
export function readQuotaAnswer(input: {
  readonly status?: number | undefined;
  readonly body?: string | undefined;
  readonly text?: string | undefined;
}): QuotaAnswer | undefined {
  const envelope = parseEnvelope(input.body);
  const message = envelope?.message ?? '';
  const words = [message, input.text ?? '', envelope === undefined ? (input.body ?? '') : '']
    .filter((w) => w !== '')
    .join('\n');
  const details = envelope?.details ?? [];
  const isQuota =
    input.status === 429 ||
    envelope?.code === 429 ||
    envelope?.status === 'RESOURCE_EXHAUSTED' ||
    QUOTA_WORDS.test(words);
  if (!isQuota) return undefined;
  const quotaIds = details.flatMap((d) => (d.violations ?? []).map((v) => v.quotaId ?? ''));
  const reasons = details.map((d) => d.reason ?? '');
  const said = firstLine(message === '' ? words : message);
  const delay = statedDelay(details, words);
  const daily =
    quotaIds.some((id) => /PerDay|Daily/i.test(id)) ||
    reasons.includes('QUOTA_EXHAUSTED') ||
    DAILY_WORDS.test(words);
  const minute =
    quotaIds.some((id) => /PerMinute/i.test(id)) ||
    reasons.includes('RATE_LIMIT_EXCEEDED') ||
    MINUTE_WORDS.test(words);
  // A model the access has no quota for at all ("limit: 0"): no wait makes it pass.
  if (/limit:\s*0(?![\d.])/.test(words)) return { kind: 'daily', resetMs: undefined, said };
  // A short reset is a rolling window, whatever its name; a long one is not worth waiting out.
  if (delay !== undefined)
    return delay <= LONGEST_WAITED_MS
      ? { kind: 'per-minute', retryMs: Math.max(1000, delay), said }
      : { kind: 'daily', resetMs: delay, said };
  if (daily && !minute) return { kind: 'daily', resetMs: undefined, said };
  return { kind: 'per-minute', retryMs: minute ? 60_000 : DEFAULT_RETRY_MS, said };
}

function parseEnvelope(
  body: string | undefined,
): z.infer<typeof envelopeSchema>['error'] | undefined {
  if (body === undefined) return undefined;
  let json: unknown;
  try {
    json = JSON.parse(body.slice(Math.max(0, body.search(/[[{]/))));
  } catch {
    return undefined;
  }
  const parsed = envelopeSchema.safeParse(Array.isArray(json) ? json[0] : json);
  return parsed.success ? parsed.data.error : undefined;
}

/** The wait the answer names: `RetryInfo`, Code Assist's reset delay, else its words. */
function statedDelay(
  details: readonly z.infer<typeof detailSchema>[],
  words: string,
): number | undefined {
  for (const d of details) {
    const stated = d.retryDelay ?? d.metadata?.['quotaResetDelay'];
    const ms = typeof stated === 'string' ? parseDuration(stated) : undefined;
    if (ms !== undefined) return ms;
  }
  for (const phrase of WAIT_PHRASES) {
    const match = phrase.exec(words);
    const ms = match?.[1] === undefined ? undefined : parseDuration(match[1].replace(/\.+$/, ''));
    if (ms !== undefined) return ms;
  }
  return undefined;
}

/** A message's first line, without Gemini CLI's `[API Error: …]` wrapping. */
function firstLine(text: string): string {
  return (
    text
      .split('\n')
      .map((l) => l.trim())
      .find((l) => l !== '') ?? ''
  )
    .replace(/^\[API Error: /, '')
    .replace(/\]$/, '')
    .slice(0, 300);
}

/** A wait in words a person reads at a glance: `30 s`, `12 min`, `17 h`. */
export function waitWords(ms: number): string {
  const s = Math.ceil(ms / 1000);
  if (s < 100) return `${s} s`;
  const min = Math.ceil(s / 60);
  if (min < 100) return `${min} min`;
  const h = Math.floor(min / 60);
  return min % 60 === 0 || h >= 10 ? `${Math.round(min / 60)} h` : `${h} h ${min % 60} min`;
}

/** When a daily limit frees up, for the stop message: "resets in 17 h (at 09:14 UTC)". */
export function resetWords(resetMs: number | undefined, now: Date): string {
  if (resetMs === undefined)
    return 'resets within 24 hours (a daily limit counts the last 24 hours; the exact time was not passed on)';
  const at = new Date(now.getTime() + resetMs);
  return `resets in ${waitWords(resetMs)} (at ${at.toISOString().slice(0, 16).replace('T', ' ')} UTC)`;
}
