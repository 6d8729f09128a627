import { GitHubError } from '../../adapters/github/errors.js';
import { ApiCallError } from '../../core/errors.js';
import { StopError } from '../../core/stops.js';

/** GitHub's answers that say for sure the write was not done. */
const REFUSALS = new Set([
  'auth',
  'permission',
  'not-found',
  'validation',
  'conflict',
  'rate-limited',
]);

/**
 * A failure while setting up a new run's remote, before the run exists, as a stop from the table
 * (see `STOPS`): refused (exit 2, nothing created or changed) when GitHub refused its first write
 * for sure, rate-limited (exit 75, the same) when its rate limit did; start failed (exit 1, run the
 * same command again) once something was set up or the outcome is unknown. `steps` are the set-up
 * checkpoints passed. Any other error is returned as it is.
 */
export function setUpStop(error: unknown, steps: readonly string[]): unknown {
  if (!(error instanceof ApiCallError)) return error;
  const repositoryExists = steps.includes('github:repository-ensured');
  if (error instanceof GitHubError && !repositoryExists && REFUSALS.has(error.kind))
    return new StopError(
      error.kind === 'rate-limited' ? 'rate-limited' : 'refused',
      error.message,
      {
        cause: error,
        ...(error.kind === 'rate-limited' && error.resumeAt !== undefined
          ? { then: `Run the same command again after ${error.resumeAt.toISOString()}.` }
          : {}),
      },
    );
  return new StopError('start-failed', error.message, { cause: error });
}
