/**
 * One error base for the whole project. Every error carries a stable string `code` that callers
 * branch on (never the message text), an optional `cause`, and whether retrying may help.
 * Messages must never contain a secret: adapters pass them through {@link redactSecrets} first.
 */
export class MakerError extends Error {
  override readonly name: string = 'MakerError';
  readonly code: string;
  readonly isRetryable: boolean;

  constructor(
    code: string,
    message: string,
    options: { cause?: unknown; isRetryable?: boolean } = {},
  ) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.code = code;
    this.isRetryable = options.isRetryable ?? false;
  }
}

/** The caller asked for something that cannot be done as asked (bad flag, impossible parameters). */
export class UsageError extends MakerError {
  override readonly name = 'UsageError';
  constructor(message: string) {
    super('usage', message);
  }
}

/** Required configuration is missing or wrong (an API key not set, an unknown model name). */
export class ConfigError extends MakerError {
  override readonly name = 'ConfigError';
  constructor(message: string) {
    super('config', message);
  }
}

/** A call to an external service failed. `status` is the HTTP status when there was one. */
export class ApiCallError extends MakerError {
  override readonly name: string = 'ApiCallError';
  readonly service: string;
  readonly status: number | undefined;

  constructor(
    service: string,
    message: string,
    options: { status?: number; cause?: unknown; isRetryable?: boolean } = {},
  ) {
    super('api-call', redactSecrets(message), {
      cause: options.cause,
      isRetryable: options.isRetryable ?? isRetryableStatus(options.status),
    });
    this.service = service;
    this.status = options.status;
  }
}

/** A vote or run was cancelled through its AbortSignal. */
export class AbortedError extends MakerError {
  override readonly name = 'AbortedError';
  constructor(reason?: unknown) {
    super('aborted', reason instanceof Error ? reason.message : 'The operation was aborted.', {
      cause: reason,
    });
  }
}

/** 408, 429 and 5xx are worth retrying; everything else is the caller's to fix. */
export function isRetryableStatus(status: number | undefined): boolean {
  return status === 408 || status === 429 || (status !== undefined && status >= 500);
}

/**
 * Credentials by their published formats: Google API keys, GitHub tokens; and the user information
 * of an http(s) URL (`https://oauth2:TOKEN@host/…`, `https://TOKEN@github.com/…`, as a remote URL
 * embeds a token of any format), leaving the scheme and host.
 */
const KEY_FORMATS: readonly RegExp[] = [
  /AIza[0-9A-Za-z_-]{20,}/g,
  /gh[pousr]_[0-9A-Za-z]{20,}/g,
  /github_pat_[0-9A-Za-z_]{20,}/g,
  /(?<=[Hh][Tt][Tt][Pp][Ss]?:\/\/)[^\s/?#@"'<>\\]+(?=@)/g,
];

/** The key formats as one pattern: one pass over a text instead of one per format. */
const ANY_KEY_FORMAT = new RegExp(KEY_FORMATS.map((r) => r.source).join('|'), 'g');

const SECRET_PATTERNS: readonly RegExp[] = [
  ...KEY_FORMATS,
  // A value that looks made, not written: with a digit, or long (so "token: Repository" stays).
  /((?:key|token|api[_-]?key|authorization)["']?\s*[:=]\s*["']?)(?:Bearer\s+)?(?=[^\s"'&,}]*\d|[^\s"'&,}]{24})[^\s"'&,}]{8,}/gi,
];

/** Redacts text on its way out of MAKER. */
export type Redactor = (text: string) => string;

/**
 * The one redactor every outward text passes (the state file, the journal, CLI output, MCP
 * results): the configured keys' values, whatever their format, and keys of known formats. It
 * leaves structure alone (a JSON field named `key` holding a tree hash stays), so it is safe on
 * serialised state.
 */
export function makeRedactor(secrets: readonly string[]): Redactor {
  // A list that only grows (a run's, given a GitHub token once it is known) is followed: the
  // values are taken again when its length changed.
  let taken = -1;
  let values: string[] = [];
  return (text) => {
    if (secrets.length !== taken) {
      taken = secrets.length;
      values = [...new Set(secrets.filter((s) => s.length >= 4))].sort(
        (a, b) => b.length - a.length,
      );
    }
    let out = text;
    for (const value of values) if (out.includes(value)) out = out.split(value).join('[redacted]');
    return out.replace(ANY_KEY_FORMAT, '[redacted]');
  };
}

/**
 * Replaces anything that looks like an API key or token with `[redacted]`, including `key=…`
 * shapes: for free-text messages from services (never for structured data, see {@link makeRedactor}).
 */
export function redactSecrets(text: string, extraSecrets: readonly string[] = []): string {
  let out = text;
  for (const secret of extraSecrets) {
    if (secret.length >= 4) out = out.split(secret).join('[redacted]');
  }
  for (const pattern of SECRET_PATTERNS) {
    out = out.replace(pattern, (match, prefix: unknown) =>
      typeof prefix === 'string' && prefix.length > 0 && prefix !== match
        ? `${prefix}[redacted]`
        : '[redacted]',
    );
  }
  return out;
}

/**
 * A branch on the remote is not where maker last left it: someone else moved (or deleted, or
 * created) it, so maker's push was refused and nothing of theirs was overwritten.
 */
export class RefMovedError extends MakerError {
  override readonly name = 'RefMovedError';
  readonly branch: string;
  /** What maker last pushed there (null: maker never pushed it). */
  readonly expected: string | null;
  /** Where it is now, when known (null: it does not exist). */
  readonly actual: string | null | undefined;

  constructor(branch: string, expected: string | null, actual: string | null | undefined) {
    const now =
      actual === undefined
        ? 'moved'
        : actual === null
          ? 'was deleted'
          : `is at ${actual.slice(0, 12)}`;
    super(
      'ref-moved',
      `Branch ${branch} was changed by someone else: maker last pushed ${expected === null ? 'nothing there' : expected.slice(0, 12)}, and it ${now}. Nothing was overwritten.`,
    );
    this.branch = branch;
    this.expected = expected;
    this.actual = actual;
  }
}
