import { createHash } from 'node:crypto';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { CREDENTIAL_NAMES } from '../../core/credential-names.js';
import { makePrivateHome } from './private-home.js';
import { removeWhenOrphaned } from './process-group.js';

/**
 * What every call MAKER makes through the person's own `gemini` shares: a concrete model, no
 * extensions, no MCP servers, every tool denied by MAKER's policy, MAKER's own system prompt, a
 * private Gemini CLI home (`private-home.ts`) and a private, empty working directory trusted for
 * that process only. Nothing here reads Gemini CLI's credentials: the `gemini` binary signs in on
 * its own, as the person set it up.
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

/**
 * The private directory of one model's calls (mode 0700): the Gemini CLI home they run in, the
 * policy, system prompts, the processes' temporary files, and an empty workspace. Removed when the
 * model closes, or, if MAKER ended without closing it, by a watcher of its own.
 */
export class CallDirectory {
  readonly root: string;
  readonly policy: string;
  /** `GEMINI_CLI_HOME` of the calls. */
  readonly home: string;
  /** `TMPDIR` of the calls (Gemini CLI writes its error reports there). */
  readonly tmp: string;
  /** The calls' working directory: empty, so no project file or context reaches the model. */
  readonly work: string;
  readonly #systems = new Map<string, Promise<string>>();
  #unwatch: () => void = () => undefined;

  private constructor(root: string) {
    this.root = root;
    this.policy = join(root, 'policy', 'maker-deny-all.toml');
    this.home = join(root, 'home');
    this.tmp = join(root, 'tmp');
    this.work = join(root, 'work');
  }

  static async create(env: Readonly<Record<string, string | undefined>>): Promise<CallDirectory> {
    const dir = new CallDirectory(await mkdtemp(join(tmpdir(), 'maker-gemini-cli-')));
    dir.#unwatch = removeWhenOrphaned(dir.root);
    try {
      for (const sub of ['policy', 'system', 'home', 'tmp', 'work'])
        await mkdir(join(dir.root, sub), { mode: 0o700 });
      await writeFile(dir.policy, DENY_ALL_POLICY, { mode: 0o600 });
      await makePrivateHome(dir.home, env);
    } catch (error) {
      await dir.remove();
      throw error;
    }
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
    this.#unwatch();
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

/**
 * Credentials MAKER holds that are not Gemini CLI's: GitHub's and Jules's, and its fakes'. The
 * child never gets them (it answers prompts, with every tool denied; what it has not got, no
 * answer can reach).
 */
const NOT_GEMINIS = [
  ...CREDENTIAL_NAMES.github,
  ...CREDENTIAL_NAMES.jules,
  'MAKER_FAKE_GITHUB_TOKEN',
  'FAKE_JULES_API_KEY',
];

/**
 * The child's environment: the person's (its sign-in's variables) without MAKER's other
 * credentials, in MAKER's private home, with MAKER's system prompt, this folder trusted, no
 * browser and no relaunch.
 */
export function childEnv(
  env: Readonly<Record<string, string | undefined>>,
  dir: CallDirectory,
  systemFile: string,
): NodeJS.ProcessEnv {
  const out: NodeJS.ProcessEnv = {};
  for (const [name, value] of Object.entries(env)) if (value !== undefined) out[name] = value;
  for (const name of NOT_GEMINIS) delete out[name];
  // MAKER's own server may run inside Gemini CLI: the child is a separate, plain session.
  delete out['GEMINI_CLI'];
  out['GEMINI_CLI_HOME'] = dir.home;
  out['TMPDIR'] = dir.tmp;
  out['GEMINI_SYSTEM_MD'] = systemFile;
  out['GEMINI_CLI_TRUST_WORKSPACE'] = 'true';
  // A sign-in that needs a person fails at once instead of opening a browser or asking for a code.
  out['NO_BROWSER'] = 'true';
  // One process, not a launcher and its child: fewer processes, and nothing to outlive a kill.
  out['GEMINI_CLI_NO_RELAUNCH'] = 'true';
  out['NO_COLOR'] = '1';
  return out;
}
