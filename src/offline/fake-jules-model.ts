import { execFile } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { errorEnvelope } from './google-http.js';

const execFileAsync = promisify(execFile);

/** The fake Jules server's public shapes, and the git reads behind its sources. */

/** A repository the fake knows as a Jules source, backed by a real git repository (bare or not). */
export interface FakeJulesSource {
  readonly owner: string;
  readonly repo: string;
  readonly gitDir: string;
  readonly defaultBranch?: string;
}

/** What the fake agent does in one session, decided when the session is created. */
export interface FakeAgentScript {
  /** The changeSet's unified diff (against the starting branch's head), or none. */
  readonly patch?: string;
  /** Fail the session with this reason instead. */
  readonly fail?: string;
  /** Stop in AWAITING_USER_FEEDBACK with this question until a message arrives. */
  readonly askFeedback?: string;
  /** Put the patch only in an activity artifact, not in `outputs`. */
  readonly patchOnlyInActivities?: boolean;
  /** Report this `baseCommitId` (a stale patch, made against another commit). */
  readonly baseCommitId?: string;
  /** With `askFeedback`: ask it again after every answer (an agent that never has enough). */
  readonly keepsAsking?: boolean;
  /**
   * Await plan approval (even when the create did not ask for it), and after every approval plan
   * again and await approval again: a session that never leaves plan approval.
   */
  readonly keepsPlanning?: boolean;
}

export interface FakeAgentContext {
  readonly id: string;
  readonly title: string;
  readonly prompt: string;
  readonly source: string;
  readonly startingBranch: string;
  readonly baseCommit: string;
  /** Messages sent to the session so far. */
  readonly messages: readonly string[];
}

/**
 * A fault to inject before answering: an HTTP status (with an optional Retry-After, message and
 * extra error details), or nothing.
 */
export type FakeFault =
  | {
      readonly status: number;
      readonly retryAfter?: string;
      readonly message?: string;
      readonly details?: readonly Record<string, unknown>[];
    }
  | undefined;

/**
 * The 429 Jules answers when a plan limit stops a new session. The concurrent-task message is the
 * one Jules is documented to show ("You are currently at your concurrent task limit"); the daily
 * one is inferred. Both are `RESOURCE_EXHAUSTED` with a `QuotaFailure` detail naming the limit; the
 * daily one also says, in a `RetryInfo` detail and `Retry-After`, when the quota frees up.
 */
export function julesQuotaFault(
  limit: 'concurrent' | 'daily',
  options: { limit?: number; retryAfterS?: number } = {},
): NonNullable<FakeFault> {
  const concurrent = limit === 'concurrent';
  const subject = concurrent ? 'concurrent_tasks' : 'daily_tasks';
  const retryAfterS = Math.max(1, Math.ceil(options.retryAfterS ?? 86_400));
  return {
    status: 429,
    message: concurrent
      ? 'You are currently at your concurrent task limit. Wait for a running task to finish.'
      : 'You have reached your daily task limit. Try again later.',
    details: [
      {
        '@type': 'type.googleapis.com/google.rpc.QuotaFailure',
        violations: [
          {
            subject,
            description: concurrent
              ? `Concurrent task limit${options.limit === undefined ? '' : ` of ${options.limit}`} reached.`
              : `Daily task limit${options.limit === undefined ? '' : ` of ${options.limit}`} reached.`,
          },
        ],
      },
      ...(concurrent
        ? []
        : [{ '@type': 'type.googleapis.com/google.rpc.RetryInfo', retryDelay: `${retryAfterS}s` }]),
    ],
    ...(concurrent ? {} : { retryAfter: String(retryAfterS) }),
  };
}

/**
 * Page tokens that misbehave, in the session and activity lists: the last page of a listing carries
 * a `nextPageToken` all the same, `repeat` (the token of the page just served, which leads back to
 * it; "0", the first page, when that page was asked for without a token) or `empty` (`""`). After
 * `loops` such last pages of one listing (default 50), it ends as it should, so a client that
 * follows them ends too. `pageSize` caps the page size asked for.
 */
export interface FakePageTokens {
  readonly kind: 'repeat' | 'empty';
  readonly pageSize?: number;
  readonly loops?: number;
}

export interface FakeJules {
  /** Pass as the client's base URL (it ends in /v1alpha). */
  readonly baseUrl: string;
  /** Every request: method and path. */
  readonly requests: readonly { readonly method: string; readonly path: string }[];
  /** Connects another repository (as a person does in the Jules web app). */
  addSource(source: FakeJulesSource): void;
  /** Sessions by id, for assertions. */
  readonly sessions: ReadonlyMap<
    string,
    {
      readonly title: string;
      readonly state: string;
      /** `clock()` when it was created: what the daily limit counts. */
      readonly startedAt: number;
    }
  >;
  close(): Promise<void>;
}

/** The commit `branch` points to in `gitDir`, or undefined (git runs asynchronously: the fake never blocks its clients on it). */
export async function revParse(gitDir: string, branch: string): Promise<string | undefined> {
  // A loose ref (what a push writes) is a file holding the id, read at once (41 bytes: a few µs,
  // where `fs/promises` costs four thread-pool round trips per create); anything else asks git.
  let loose = '';
  try {
    loose = readFileSync(join(gitDir, 'refs', 'heads', branch), 'utf8');
  } catch {
    // Not a loose ref (packed, or no such branch): git knows.
  }
  if (/^[0-9a-f]{40}\n?$/.test(loose)) return loose.trim();
  try {
    const { stdout } = await execFileAsync('git', [
      '--git-dir',
      gitDir,
      'rev-parse',
      '--verify',
      '--quiet',
      `refs/heads/${branch}^{commit}`,
    ]);
    return stdout.trim() || undefined;
  } catch {
    return undefined;
  }
}

export async function branches(source: FakeJulesSource): Promise<string[]> {
  try {
    const { stdout } = await execFileAsync('git', [
      '--git-dir',
      source.gitDir,
      'for-each-ref',
      '--format=%(refname:short)',
      'refs/heads',
    ]);
    return stdout.split('\n').filter(Boolean);
  } catch {
    return [];
  }
}

export function sourceName(source: FakeJulesSource): string {
  return `sources/github/${source.owner}/${source.repo}`;
}

const AUTOMATION_MODES = new Set(['AUTOMATION_MODE_UNSPECIFIED', 'AUTO_CREATE_PR']);

/**
 * A `sessions.create` body checked as Jules checks it: the automation mode enum, a prompt, a
 * connected source and an existing starting branch; or the 400 it answers, with field violations.
 */
export async function checkCreate(
  body: Record<string, unknown>,
  sources: readonly FakeJulesSource[],
): Promise<
  | { source: FakeJulesSource; startingBranch: string; baseCommit: string; prompt: string }
  | { status: 400; envelope: unknown }
> {
  const invalid = (message: string, field: string, description: string) => ({
    status: 400 as const,
    envelope: errorEnvelope(400, message, [{ field, description }]),
  });
  const mode = body['automationMode'];
  if (mode !== undefined && (typeof mode !== 'string' || !AUTOMATION_MODES.has(mode)))
    return invalid(
      `Invalid value at 'session.automation_mode' (type.googleapis.com/google.labs.jules.v1alpha.AutomationMode), ${JSON.stringify(mode)}`,
      'session.automation_mode',
      `Invalid value ${JSON.stringify(mode)}`,
    );
  const prompt = body['prompt'];
  if (typeof prompt !== 'string' || prompt === '')
    return invalid('prompt is required.', 'session.prompt', 'required');
  const context = body['sourceContext'] as
    { source?: string; githubRepoContext?: { startingBranch?: string } } | undefined;
  const source = sources.find((s) => sourceName(s) === context?.source);
  if (source === undefined)
    return invalid(
      `Source ${String(context?.source)} is not connected to Jules.`,
      'session.source_context.source',
      'not found',
    );
  const startingBranch =
    context?.githubRepoContext?.startingBranch ?? source.defaultBranch ?? 'main';
  const baseCommit = await revParse(source.gitDir, startingBranch);
  if (baseCommit === undefined)
    return invalid(
      `Branch ${startingBranch} not found in ${sourceName(source)}.`,
      'session.source_context.github_repo_context.starting_branch',
      'not found',
    );
  return { source, startingBranch, baseCommit, prompt };
}

const DAY_MS = 24 * 60 * 60 * 1000;

/**
 * The plan limit a new session would exceed, as Jules answers it (undefined when none): sessions
 * not yet COMPLETED or FAILED (and those being created) against `limits.concurrent`, sessions
 * started in the last 24 hours of the clock against `limits.daily`.
 */
export function planLimitFault(
  sessions: readonly { readonly state: string; readonly startedAt: number }[],
  creating: readonly number[],
  limits: { readonly concurrent?: number | undefined; readonly daily?: number | undefined },
  now: number,
): FakeFault {
  const running =
    creating.length +
    sessions.filter((s) => s.state !== 'COMPLETED' && s.state !== 'FAILED').length;
  if (limits.concurrent !== undefined && running >= limits.concurrent)
    return julesQuotaFault('concurrent', { limit: limits.concurrent });
  if (limits.daily === undefined) return undefined;
  const recent = [...sessions.map((s) => s.startedAt), ...creating]
    .filter((t) => now - t < DAY_MS)
    .sort((a, b) => a - b);
  if (recent.length < limits.daily) return undefined;
  const frees = (recent[recent.length - limits.daily] ?? now) + DAY_MS;
  return julesQuotaFault('daily', { limit: limits.daily, retryAfterS: (frees - now) / 1000 });
}
