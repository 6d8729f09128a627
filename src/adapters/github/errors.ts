import { ApiCallError, redactSecrets } from '../../core/errors.js';

/** Why a GitHub call failed, for callers that branch on it. */
export type GitHubErrorKind =
  | 'auth'
  | 'permission'
  | 'not-found'
  | 'rate-limited'
  | 'validation'
  | 'conflict'
  | 'server'
  | 'network'
  | 'protocol';

/** A repository permission a token may lack (GitHub's fine-grained names). */
export type GitHubPermission = 'contents' | 'pull_requests' | 'administration' | 'issues';

const PERMISSION_NAMES: Readonly<Record<string, string>> = {
  contents: 'Contents',
  pull_requests: 'Pull requests',
  administration: 'Administration',
  issues: 'Issues',
  metadata: 'Metadata',
};

/** A failed GitHub call. Its message says what to do, and never holds the token. */
export class GitHubError extends ApiCallError {
  override readonly name = 'GitHubError';
  readonly kind: GitHubErrorKind;
  /** For `rate-limited`: when GitHub will answer again. */
  readonly resumeAt: Date | undefined;

  constructor(
    kind: GitHubErrorKind,
    message: string,
    options: { status?: number; cause?: unknown; resumeAt?: Date; isRetryable?: boolean } = {},
  ) {
    super('github', message, {
      ...(options.status === undefined ? {} : { status: options.status }),
      ...(options.isRetryable === undefined ? {} : { isRetryable: options.isRetryable }),
    });
    this.kind = kind;
    this.resumeAt = options.resumeAt;
  }
}

/** What octokit's `RequestError` carries that this module reads. */
interface RequestErrorLike {
  readonly status: number;
  readonly message: string;
  readonly response?: {
    readonly headers: Readonly<Record<string, string | number | undefined>>;
    readonly data?: unknown;
  };
}

export function isRequestError(error: unknown): error is RequestErrorLike {
  return (
    typeof error === 'object' &&
    error !== null &&
    typeof (error as { status?: unknown }).status === 'number' &&
    (error as { name?: unknown }).name === 'HttpError'
  );
}

/** True when a request's outcome is unknown: no answer at all, or a 5xx. A create must then look before creating again. */
export function isUnknownOutcome(error: unknown): boolean {
  if (!isRequestError(error)) return true;
  return error.response === undefined || error.status >= 500;
}

/** GitHub's `errors[].message` (or `code`) lines of a validation error, and its top message. */
export function validationMessages(error: unknown): string[] {
  if (!isRequestError(error)) return [];
  const data = error.response?.data;
  if (typeof data !== 'object' || data === null) return [];
  const out: string[] = [];
  const top = (data as { message?: unknown }).message;
  if (typeof top === 'string') out.push(top);
  const errors = (data as { errors?: unknown }).errors;
  if (Array.isArray(errors))
    for (const e of errors as unknown[]) {
      if (typeof e === 'string') out.push(e);
      else if (typeof e === 'object' && e !== null) {
        const { message, code, field } = e as {
          message?: unknown;
          code?: unknown;
          field?: unknown;
        };
        if (typeof message === 'string') out.push(message);
        else if (typeof code === 'string')
          out.push(typeof field === 'string' ? `${field}: ${code}` : code);
      }
    }
  return out;
}

export function isRateLimit(error: RequestErrorLike): boolean {
  if (error.status !== 403 && error.status !== 429) return false;
  return (
    /\bsecondary rate\b/i.test(error.message) ||
    String(error.response?.headers['x-ratelimit-remaining']) === '0'
  );
}

/** When a rate-limited request may be sent again: `retry-after`, else `x-ratelimit-reset`, else a minute. */
export function rateLimitResumeAt(error: RequestErrorLike, now: number): Date {
  const headers = error.response?.headers ?? {};
  const retryAfter = Number(headers['retry-after']);
  if (Number.isFinite(retryAfter) && retryAfter > 0) return new Date(now + retryAfter * 1000);
  const reset = Number(headers['x-ratelimit-reset']);
  if (Number.isFinite(reset) && reset > 0 && !/\bsecondary rate\b/i.test(error.message))
    return new Date(reset * 1000 + 1000);
  return new Date(now + 60_000);
}

export interface CallContext {
  /** What was being done, as a verb phrase: "create the repository alice/app". */
  readonly action: string;
  /** The permission this call needs, named in the message when the token lacks it. */
  readonly needs?: GitHubPermission;
  /** The repository is known to exist (so a 404 means the token may not touch it). */
  readonly repoSeen?: boolean;
  readonly token: string;
  readonly now?: () => number;
}

/** Turns any failure of a GitHub call into a {@link GitHubError} a person can act on. */
export function toGitHubError(error: unknown, ctx: CallContext): GitHubError {
  if (error instanceof GitHubError) return error;
  const clean = (text: string) => redactSecrets(text, [ctx.token]);
  if (!isRequestError(error) || error.response === undefined) {
    const reason = error instanceof Error ? error.message : String(error);
    return new GitHubError(
      'network',
      clean(
        `GitHub did not answer while trying to ${ctx.action} (${reason}). Check the network and GITHUB_API_URL, then try again.`,
      ),
      { cause: error, isRetryable: true },
    );
  }
  const status = error.status;
  const said = validationMessages(error).join('; ') || error.message;
  const options = { status, cause: error };
  if (status === 401)
    return new GitHubError(
      'auth',
      clean(
        `GitHub refused the token (401 ${said}) while trying to ${ctx.action}. Check GITHUB_TOKEN (the extension's GitHub token setting), or run \`gh auth login\`.`,
      ),
      options,
    );
  if (isRateLimit(error)) {
    const resumeAt = rateLimitResumeAt(error, (ctx.now ?? Date.now)());
    const which = /\bsecondary rate\b/i.test(error.message) ? 'secondary rate limit' : 'rate limit';
    return new GitHubError(
      'rate-limited',
      `GitHub's ${which} stopped maker while trying to ${ctx.action}, for longer than maker waits: GitHub answers again after ${resumeAt.toISOString()}.`,
      { ...options, resumeAt, isRetryable: true },
    );
  }
  const accepted = error.response.headers['x-accepted-github-permissions'];
  const permission =
    typeof accepted === 'string' && accepted !== ''
      ? accepted.split(/[;,]/)[0]?.split('=')[0]?.trim()
      : ctx.needs;
  if (status === 403 || (status === 404 && ctx.repoSeen === true && ctx.needs !== undefined))
    return new GitHubError(
      'permission',
      clean(`The GitHub token may not ${ctx.action} (${status} ${said}). ${needsText(permission)}`),
      options,
    );
  if (status === 404)
    return new GitHubError(
      'not-found',
      clean(
        `GitHub found nothing to ${ctx.action} (404). Check the owner and name, and that the token can see it${ctx.needs === undefined ? '' : `: ${needsText(ctx.needs)}`}`,
      ),
      options,
    );
  if (status === 409 || status === 405)
    return new GitHubError('conflict', clean(`GitHub refused to ${ctx.action}: ${said}`), options);
  if (status === 422 || status === 400)
    return new GitHubError(
      'validation',
      clean(`GitHub refused to ${ctx.action}: ${said}`),
      options,
    );
  if (status >= 500)
    return new GitHubError(
      'server',
      clean(`GitHub failed (${status}) while trying to ${ctx.action}. Try again later.`),
      options,
    );
  return new GitHubError(
    'protocol',
    clean(`GitHub answered ${status} to ${ctx.action}: ${said}`),
    options,
  );
}

function needsText(permission: string | undefined): string {
  if (permission === undefined)
    return 'A fine-grained token needs Contents and Pull requests: Read and write (Administration too to create repositories); a classic token needs the repo scope.';
  const name = PERMISSION_NAMES[permission] ?? permission;
  return `It needs the ${name}: Read and write permission (fine-grained token: Repository permissions → ${name}; classic token: the repo scope).`;
}
