import { AbortedError, ApiCallError } from '../../core/errors.js';
import { DEFAULT_MODEL_WAITS, type ModelWaits } from '../../core/deadlines.js';
import { waitWords } from '../../core/rate-limits.js';
import { spawnGroup, type GroupExit } from './process-group.js';
import { SIGN_IN_CHECK_COMMAND } from './private-home.js';
import { demandsLogin, exitError, signInError, tooOldError } from './said.js';
import { BASE_SYSTEM_PROMPT, CallDirectory, childEnv, commonArgs } from './setup.js';

/**
 * Whether the person's `gemini` can take MAKER's calls, found out before anything is created and
 * without a model request (no quota spent), within the start-up deadline:
 *
 * - its sign-in, checked the way Gemini CLI checks it when no one is there to log in: headless,
 *   no terminal, stdin closed, no browser. It signs in (refreshing a token, asking its service
 *   who the person is), then runs a custom command of MAKER's private home whose only step is a
 *   shell command MAKER's policy blocks, so it stops before any model call. "Blocked" is the
 *   answer that it is signed in; a login it would need fails at once (exit 41).
 * - its flags (`--help`): one too old for MAKER's is refused here, with the upgrade to make; one
 *   without ACP mode is used one process per call, and said so.
 */

/** How calls reach `gemini`: one long-lived `--acp` child, or one `-p` process per call. */
export type GeminiCliMode = 'acp' | 'headless';

export interface GeminiCliProbe {
  readonly mode: GeminiCliMode;
  /** What a person should know, in sentences (the slower mode of an older `gemini`). */
  readonly notes: readonly string[];
}

/** The flags MAKER's calls pass (`setup.ts`, and `-o`, `-p`), as `gemini --help` lists them. */
const NEEDED_FLAGS = [
  'policy',
  'skip-trust',
  'allowed-mcp-server-names',
  'approval-mode',
  'output-format',
];

export async function probeGeminiCli(options: {
  readonly command: string;
  readonly model: string;
  readonly env: Readonly<Record<string, string | undefined>>;
  readonly waits?: ModelWaits | undefined;
  /** Ctrl-C: ends the check's processes at once and rejects as aborted. */
  readonly signal?: AbortSignal | undefined;
}): Promise<GeminiCliProbe> {
  const waits = options.waits ?? DEFAULT_MODEL_WAITS;
  const dir = await CallDirectory.create(options.env);
  try {
    const env = childEnv(options.env, dir, await dir.systemFile(BASE_SYSTEM_PROMPT));
    const run = (args: readonly string[]) =>
      runBounded(options.command, args, { cwd: dir.work, env }, waits.startupMs, options.signal);
    const [help, check] = await Promise.all([
      run(['--help']),
      run([...commonArgs(options.model, dir), '-o', 'json', '-p', `/${SIGN_IN_CHECK_COMMAND}`]),
    ]);
    if (options.signal?.aborted === true) throw new AbortedError(options.signal.reason);
    const flags = new Set([...help.out.matchAll(/--([a-z][a-z-]*)/g)].map((m) => m[1]));
    const missing = NEEDED_FLAGS.filter((f) => !flags.has(f));
    if (help.exit !== undefined && help.exit.code === 0 && missing.length > 0)
      throw tooOldError(options.command, missing.join(', '));
    verdict(options.command, check, waits.startupMs);
    return flags.has('acp')
      ? { mode: 'acp', notes: [] }
      : {
          mode: 'headless',
          notes: [
            `this Gemini CLI has no ACP mode, so MAKER starts it once per call (a few seconds each); upgrading it (npm install -g @google/gemini-cli@latest) makes calls faster`,
          ],
        };
  } finally {
    await dir.remove();
  }
}

/**
 * Words that say the check got past the sign-in: the policy blocked the command's shell step (or,
 * in a `gemini` that runs custom commands differently, the model answered).
 */
const SIGNED_IN = new RegExp(`${SIGN_IN_CHECK_COMMAND} cannot be run|Blocked command|"response"`);

/** The sign-in check's outcome: returns when signed in, else throws what to do. */
function verdict(command: string, check: Bounded, startupMs: number): void {
  const said = `${check.out}\n${check.err}`;
  if (SIGNED_IN.test(said)) return;
  if (check.exit === undefined)
    throw new ApiCallError(
      'gemini-cli',
      `Gemini CLI did not finish signing in within ${waitWords(startupMs)}: its service did not answer, or it waits for something. Check that \`gemini\` answers in a terminal (MAKER_GEMINI_START_S allows it longer).`,
      { isRetryable: false },
    );
  if (check.exit.code === 41 || demandsLogin(said)) throw signInError(check.err || check.out);
  throw exitError(command, check.exit.code, said, new Date());
}

interface Bounded {
  readonly out: string;
  readonly err: string;
  /** Undefined: it did not end (nor answer) within the deadline, and was ended. */
  readonly exit: GroupExit | undefined;
}

/**
 * Runs `gemini` with stdin closed, for at most `ms`; a login prompt, or an abort (Ctrl-C), ends it
 * at once.
 */
async function runBounded(
  command: string,
  args: readonly string[],
  spawnOptions: Parameters<typeof spawnGroup>[2],
  ms: number,
  signal: AbortSignal | undefined,
): Promise<Bounded> {
  const child = spawnGroup(command, args, spawnOptions);
  let out = '';
  let err = '';
  let late = false;
  let done = false;
  const heard = () => {
    if (demandsLogin(`${out}\n${err}`)) {
      done = true;
      child.kill();
    }
  };
  child.stdout.on('data', (chunk: Buffer) => {
    out = (out + chunk.toString()).slice(-20_000);
    heard();
  });
  child.stderr.on('data', (chunk: Buffer) => {
    err = (err + chunk.toString()).slice(-8000);
    heard();
  });
  child.stdin.end();
  const timer = setTimeout(() => {
    late = !done;
    child.kill();
  }, ms);
  const stop = () => child.kill();
  signal?.addEventListener('abort', stop, { once: true });
  if (signal?.aborted === true) stop();
  const exit = await child.exited.finally(() => {
    clearTimeout(timer);
    signal?.removeEventListener('abort', stop);
  });
  return { out, err, exit: late ? undefined : exit };
}
