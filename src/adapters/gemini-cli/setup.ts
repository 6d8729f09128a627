import { createHash } from 'node:crypto';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ApiCallError, ConfigError, type MakerError } from '../../core/errors.js';
import { isDailyQuotaText } from '../../core/quota.js';

/**
 * What every call MAKER makes through the person's own `gemini` shares: a concrete model, no
 * extensions, no MCP servers, every tool denied by MAKER's policy, MAKER's own system prompt, and
 * a private, empty working directory trusted for that process only. Nothing here reads Gemini CLI's
 * credentials: the `gemini` binary signs in on its own, as the person set it up.
 */

/**
 * The policy MAKER ships for these calls: every tool denied, so the model call is a plain one (no
 * tool is declared to the model). Kept in the bundle and written to the private directory, never
 * into an extension's `policies/` (that would deny the person's own tools in their sessions).
 */
export const DENY_ALL_POLICY = `# MAKER's calls through Gemini CLI are plain model calls: every tool is denied.
[[rule]]
toolName = "*"
decision = "deny"
priority = 999
`;

/** MAKER's system prompt for Gemini CLI: replaces Gemini CLI's agent prompt (GEMINI_SYSTEM_MD). */
export const BASE_SYSTEM_PROMPT = `You are the language model inside MAKER, a program that sends you one self-contained request at a time.
You have no tools and no access to files, the web or a shell: answer from the request alone.
Follow the request's instructions exactly, and answer in the format it asks for (for JSON: only the JSON, no prose around it).`;

/** No MCP server is allowed: this name matches none. */
const NO_MCP_SERVER = 'maker-allows-no-mcp-server';

/** The private directory of one model's calls: the policy, system prompts, and an empty workspace. */
export class CallDirectory {
  readonly root: string;
  readonly policy: string;
  /** The calls' working directory: empty, so no project file or context reaches the model. */
  readonly work: string;
  readonly #systems = new Map<string, Promise<string>>();

  private constructor(root: string) {
    this.root = root;
    this.policy = join(root, 'policy', 'maker-deny-all.toml');
    this.work = join(root, 'work');
  }

  static async create(): Promise<CallDirectory> {
    const dir = new CallDirectory(await mkdtemp(join(tmpdir(), 'maker-gemini-cli-')));
    await mkdir(join(dir.root, 'policy'));
    await mkdir(join(dir.root, 'system'));
    await mkdir(dir.work);
    await writeFile(dir.policy, DENY_ALL_POLICY, { mode: 0o600 });
    return dir;
  }

  /** A file holding `text` as a system prompt (one per distinct text). */
  systemFile(text: string): Promise<string> {
    const name = createHash('sha256').update(text).digest('hex').slice(0, 16);
    let file = this.#systems.get(name);
    if (file === undefined) {
      const path = join(this.root, 'system', `${name}.md`);
      file = writeFile(path, text, { mode: 0o600 }).then(() => path);
      this.#systems.set(name, file);
    }
    return file;
  }

  async remove(): Promise<void> {
    await rm(this.root, { recursive: true, force: true });
  }
}

/** The flags every `gemini` process MAKER starts gets, before its mode's own. */
export function commonArgs(model: string, dir: CallDirectory): string[] {
  return [
    '-m',
    model,
    '-e',
    'none',
    '--allowed-mcp-server-names',
    NO_MCP_SERVER,
    '--policy',
    dir.policy,
    '--approval-mode',
    'default',
    '--skip-trust',
  ];
}

/** The child's environment: the person's, with MAKER's system prompt and this folder trusted. */
export function childEnv(
  env: Readonly<Record<string, string | undefined>>,
  systemFile: string,
): NodeJS.ProcessEnv {
  const out: NodeJS.ProcessEnv = {};
  for (const [name, value] of Object.entries(env)) if (value !== undefined) out[name] = value;
  // MAKER's own server may run inside Gemini CLI: the child is a separate, plain session.
  delete out['GEMINI_CLI'];
  out['GEMINI_SYSTEM_MD'] = systemFile;
  out['GEMINI_CLI_TRUST_WORKSPACE'] = 'true';
  out['NO_COLOR'] = '1';
  return out;
}

/** What to do about Gemini CLI's sign-in, in one sentence. */
export const SIGN_IN =
  'Gemini CLI is not signed in: run `gemini` once and choose Login with Google (or configure its API key or Vertex AI), then try again';

/** A daily quota's words in an error (Code Assist's and the Gemini API's). */
export const isDailyQuota = isDailyQuotaText;

/** A 429 that stops the run at once, with when and how to go on. */
export function quotaStop(said: string): ApiCallError {
  return new ApiCallError(
    'gemini-cli',
    `Gemini CLI's model quota is spent (${said.trim().slice(0, 300)}). The daily limit of this access frees up within 24 hours: run \`maker resume\` then (or choose another access with a key: --model-access key).`,
    { status: 429, isRetryable: false },
  );
}

/**
 * A `gemini` process's exit as an error: 41 is a sign-in to do, 53 its turn limit, 42 and 52 a
 * refused input or configuration, anything else a failure, each a clear stop with what it said.
 */
export function exitError(code: number | null, said: string): MakerError {
  const words = said.trim().slice(0, 500);
  if (code === 41) return new ConfigError(`${SIGN_IN}. (gemini exited with code 41: ${words})`);
  if (isDailyQuota(words)) return quotaStop(words);
  const what =
    code === 53
      ? 'stopped at its session turn limit (exit 53): raise model.maxSessionTurns in ~/.gemini/settings.json or leave it unset'
      : code === 42
        ? 'refused its input (exit 42)'
        : code === 52
          ? 'refused its configuration (exit 52): check ~/.gemini/settings.json'
          : `failed (exit ${code ?? 'by a signal'})`;
  return new ApiCallError('gemini-cli', `Gemini CLI ${what}${words === '' ? '' : `: ${words}`}.`, {
    isRetryable: false,
  });
}
