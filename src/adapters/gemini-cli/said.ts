import { ApiCallError, ConfigError, type MakerError } from '../../core/errors.js';
import { quotaError } from '../../core/model-errors.js';
import { readQuotaAnswer, waitWords } from '../../core/rate-limits.js';

/**
 * What a `gemini` process said, read as MAKER's errors: a sign-in to do, a quota (waited out or a
 * stop), a `gemini` too old for MAKER's flags, or a failure with its words. One place, so the
 * probe, ACP calls and headless calls say the same thing about the same trouble.
 */

/** What to do about Gemini CLI's sign-in, in one sentence. */
export const SIGN_IN =
  'Gemini CLI is not signed in: run `gemini` once in a terminal and choose Login with Google (or configure its API key or Vertex AI), then try again';

/** The way to another access, said when the sign-in's daily quota stops a run. */
export const OTHER_ACCESS =
  'Or go on sooner with another access: --model-access key (GEMINI_API_KEY) or vertex.';

/**
 * Gemini CLI asking a person to log in, in any of its ways (a code to paste, a browser to open, a
 * consent question, or its refusal to ask because no one is there): MAKER's calls can never
 * answer, so seeing it is enough to stop.
 */
const LOGIN_DEMANDS =
  /Please visit the following URL to authorize|Enter the authorization code|Waiting for authentication|Opening authentication page|Do you want to continue\? \[Y\/n\]|Manual authorization is required|Please set an Auth method|Authentication timed out/;

export function demandsLogin(text: string): boolean {
  return LOGIN_DEMANDS.test(text);
}

/** The sign-in error, with what Gemini CLI said (its last lines), or that it asked for a login. */
export function signInError(said: string): ConfigError {
  const words = demandsLogin(said)
    ? 'it asked for a login, which MAKER cannot answer for you'
    : `Gemini CLI said: ${tail(said)}`;
  return new ConfigError(`${SIGN_IN}. (${words})`);
}

/**
 * A `gemini` that did not start (sign in) within `ms`, in either mode: not retried, since its
 * service not answering is not a thing a second try mends in seconds; the run stops, resumable.
 */
export function startupError(ms: number): ApiCallError {
  return new ApiCallError(
    'gemini-cli',
    `Gemini CLI did not start within ${waitWords(ms)} (it signs in as it starts: its service may not be answering). Check that \`gemini\` answers in a terminal, then run \`maker resume\` (MAKER_GEMINI_START_S allows it longer).`,
    { isRetryable: false },
  );
}

/** Flags an older `gemini` refuses (yargs: "Unknown arguments: policy, skip-trust"). */
function unknownArguments(said: string): string | undefined {
  return /Unknown arguments?: ([^\n]+)/.exec(said)?.[1]?.trim();
}

/** A `gemini` older than MAKER's flags. */
export function tooOldError(command: string, unknown: string): ConfigError {
  return new ConfigError(
    `The Gemini CLI at ${command} is too old for MAKER: it does not know ${unknown
      .split(/,\s*/)
      .map((a) => `--${a}`)
      .join(
        ', ',
      )}. Upgrade it (npm install -g @google/gemini-cli@latest), or use another access: --model-access key or vertex.`,
  );
}

/**
 * A failure's words as MAKER's error: a quota answer, a sign-in, else an API failure (retryable
 * for a status that is worth it). `status`: the code Gemini CLI gave with it, if any.
 */
export function saidError(said: string, status: number | undefined, now: Date): MakerError {
  const quota = readQuotaAnswer({ status, text: said });
  if (quota !== undefined) return quotaError('gemini-cli', quota, now, OTHER_ACCESS);
  if (demandsLogin(said) || status === 401) return signInError(said);
  return new ApiCallError('gemini-cli', `Gemini CLI failed a call: ${tail(said)}`, {
    ...(status !== undefined && status >= 400 && status < 600 ? { status } : {}),
  });
}

/**
 * A `gemini` process's exit as an error: 41 is a sign-in to do, 53 its turn limit, 42 and 52 a
 * refused input or configuration, 127 a command that is not there, anything else a failure with
 * what it said (a quota's words read as a quota).
 */
export function exitError(
  command: string,
  code: number | null,
  said: string,
  now: Date,
): MakerError {
  const words = tail(said);
  if (code === 41 || demandsLogin(said)) return signInError(said);
  if (code === 127)
    return new ConfigError(
      `Could not start Gemini CLI (${command}): ${words || 'not found'}. Install it (npm install -g @google/gemini-cli), or use another access: --model-access key or vertex.`,
    );
  const unknown = unknownArguments(said);
  if (unknown !== undefined) return tooOldError(command, unknown);
  const quota = readQuotaAnswer({ text: said });
  if (quota !== undefined) return quotaError('gemini-cli', quota, now, OTHER_ACCESS);
  const what =
    code === 53
      ? 'stopped at its session turn limit (exit 53)'
      : code === 42
        ? 'refused its input (exit 42)'
        : code === 52
          ? 'refused its configuration (exit 52): check the Gemini CLI settings of the system (/etc/gemini-cli/settings.json)'
          : `failed (exit ${code ?? 'by a signal'})`;
  return new ApiCallError('gemini-cli', `Gemini CLI ${what}${words === '' ? '' : `: ${words}`}.`, {
    isRetryable: false,
  });
}

/**
 * The last lines of what a process said, on one line: without terminal escapes, stack frames and
 * long URLs.
 */
export function tail(text: string): string {
  return (
    text
      // eslint-disable-next-line no-control-regex
      .replace(/\u001b\[[0-9;?<>]*[A-Za-z]/g, '')
      .replace(/https?:\/\/\S{60,}/g, (url) => `${url.slice(0, 40)}…`)
      .trim()
      .split('\n')
      .map((l) => l.trim())
      .filter((l) => l !== '' && !/^at\s/.test(l) && !/^[{}[\]],?$/.test(l))
      .slice(-5)
      .join(' ')
      .slice(0, 500)
  );
}
