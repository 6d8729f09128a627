import {
  GitHubError,
  isRequestError,
  isUnknownOutcome,
  toGitHubError,
  validationMessages,
  type GitHubPermission,
} from './errors.js';

/** One create on GitHub (repository, pull request, comment) and how to find what it made. */
export interface CreateOp<T> {
  /** What is being done, for messages: "open a pull request from … into …". */
  readonly action: string;
  readonly needs: GitHubPermission;
  /** A 404 means the token may not (the place is known to exist). */
  readonly repoSeen: boolean;
  /** Sends the create, without automatic retries. */
  readonly create: () => Promise<T>;
  /** Finds what an earlier attempt may have made; `exists` says GitHub reported it as already there. */
  readonly lookup: (exists: boolean) => Promise<T | undefined>;
  /** Whether a 422's messages say it already exists. */
  readonly exists: (messages: readonly string[]) => boolean;
  /** The message when GitHub says it exists and the lookup cannot find it. */
  readonly hidden: string;
}

/**
 * Exactly once: when a create's outcome is unknown (no answer, 5xx), or GitHub says it already
 * exists, `lookup` decides; only when the lookup finds nothing is the create sent again (at most
 * `attempts` times in all).
 */
export async function createOnce<T>(
  op: CreateOp<T>,
  options: { token: string; attempts: number; sleep: (ms: number) => Promise<void> },
): Promise<T> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await op.create();
    } catch (error) {
      const exists =
        isRequestError(error) && error.status === 422 && op.exists(validationMessages(error));
      if (!exists && !isUnknownOutcome(error))
        throw toGitHubError(error, { ...op, token: options.token });
      const found = await op.lookup(exists);
      if (found !== undefined) return found;
      if (exists) throw new GitHubError('permission', op.hidden, { status: 422, cause: error });
      if (attempt >= options.attempts) throw toGitHubError(error, { ...op, token: options.token });
      await options.sleep(500 * attempt);
    }
  }
}
