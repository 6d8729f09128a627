import { execFile } from 'node:child_process';
import { ConfigError, redactSecrets } from '../../core/errors.js';
import { GITHUB_API_URL } from './api-url.js';

/** Runs a program; undefined when it is not installed. */
export type CommandRunner = (
  command: string,
  args: readonly string[],
  env: Readonly<Record<string, string | undefined>>,
) => Promise<{ code: number; stdout: string; stderr: string } | undefined>;

export interface GitHubToken {
  readonly token: string;
  /** Where it came from, to tell the person (never the token itself). */
  readonly source: 'GITHUB_TOKEN' | 'gh auth token';
}

/**
 * The token: `given` (`GITHUB_TOKEN`, the extension's sensitive setting), else `gh auth token` when
 * the GitHub CLI is installed and logged in (for GitHub Enterprise, `--hostname` of the API's
 * host), run in `env`.
 */
export async function resolveGitHubToken(options: {
  given: string;
  env: Readonly<Record<string, string | undefined>>;
  run?: CommandRunner;
  baseUrl?: string;
}): Promise<GitHubToken> {
  const given = options.given.trim();
  if (given !== '') return { token: given, source: 'GITHUB_TOKEN' };
  const host = webHost(options.baseUrl ?? GITHUB_API_URL);
  const args = ['auth', 'token', ...(host === 'github.com' ? [] : ['--hostname', host])];
  const result = await (options.run ?? runCommand)('gh', args, options.env);
  const token = result?.code === 0 ? result.stdout.trim() : '';
  if (token !== '' && !/\s/.test(token)) return { token, source: 'gh auth token' };
  const why =
    result === undefined
      ? 'the GitHub CLI (gh) is not installed'
      : `\`gh auth token\` gave none (${redactSecrets(result.stderr.trim() || `exit ${result.code}`).slice(0, 200)})`;
  throw new ConfigError(
    `No GitHub token: GITHUB_TOKEN is not set and ${why}. Set GITHUB_TOKEN (the extension's GitHub token setting; a fine-grained token with Contents and Pull requests: Read and write, and Administration: Read and write to create repositories), or run \`gh auth login\`.`,
  );
}

/** The web host behind an API URL: api.github.com → github.com; GHES https://h/api/v3 → h. */
function webHost(baseUrl: string): string {
  const url = new URL(baseUrl);
  return url.host === 'api.github.com' ? 'github.com' : url.host;
}

const runCommand: CommandRunner = (command, args, env) =>
  new Promise((resolve) => {
    execFile(command, [...args], { env: { ...env }, timeout: 10_000 }, (error, stdout, stderr) => {
      if (error !== null && (error as NodeJS.ErrnoException).code === 'ENOENT') resolve(undefined);
      else
        resolve({
          code: error === null ? 0 : typeof error.code === 'number' ? error.code : 1,
          stdout,
          stderr,
        });
    });
  });
