/**
 * git authenticates per command, never through stored state: the token travels in an
 * `Authorization` header set through the environment (`GIT_CONFIG_COUNT` / `GIT_CONFIG_KEY_n` /
 * `GIT_CONFIG_VALUE_n`, git ≥ 2.31), scoped to the remote's origin. It is never on a command line
 * (visible in `ps`), in `.git/config`, or in a remote URL. GitHub takes the token as the Basic-auth
 * password with any user name.
 */
export function gitAuthEnv(
  remoteUrl: string,
  token: string,
  inherited: Readonly<Record<string, string | undefined>> = process.env,
): Record<string, string> {
  const origin = new URL(remoteUrl).origin;
  const basic = Buffer.from(`x-access-token:${token}`, 'utf8').toString('base64');
  const entries: [string, string][] = [
    [`http.${origin}/.extraHeader`, `Authorization: Basic ${basic}`],
    // No credential helper for this origin: a refused token fails instead of trying stored ones.
    [`credential.${origin}/.helper`, ''],
  ];
  const start = Number(inherited['GIT_CONFIG_COUNT'] ?? '0');
  const first = Number.isInteger(start) && start > 0 ? start : 0;
  const env: Record<string, string> = {
    GIT_CONFIG_COUNT: String(first + entries.length),
    // Never wait for a person to type a password, at a terminal or in an askpass program.
    GIT_TERMINAL_PROMPT: '0',
    GIT_ASKPASS: '',
  };
  entries.forEach(([key, value], i) => {
    env[`GIT_CONFIG_KEY_${first + i}`] = key;
    env[`GIT_CONFIG_VALUE_${first + i}`] = value;
  });
  return env;
}
