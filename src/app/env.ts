/** The environment a surface runs in (settings and keys), injected for tests. */
export type Env = Readonly<Record<string, string | undefined>>;

/**
 * An environment variable, treating an unexpanded reference (`${NAME}` or `$NAME`, which Gemini CLI
 * leaves when a setting is unset) as unset.
 */
export function envValue(env: Env, name: string): string {
  const value = (env[name] ?? '').trim();
  return /^\$\{?[A-Za-z_][A-Za-z0-9_]*(:-[^}]*)?\}?$/.test(value) ? '' : value;
}

/**
 * The environment with every unexpanded reference (an unset extension setting, as Gemini CLI passes
 * it) removed, so code that reads a variable directly sees it unset rather than `${NAME}`.
 */
export function settledEnv(env: Env): Env {
  return Object.fromEntries(
    Object.entries(env).filter(
      ([name, value]) => value === undefined || envValue(env, name) !== '',
    ),
  );
}

/**
 * Secrets in the environment, so logs, journals and recordings can redact them. gh's too: without
 * `GITHUB_TOKEN`, the token MAKER uses is `gh auth token`'s, which is `GH_TOKEN` when set (for
 * GitHub Enterprise, `GH_ENTERPRISE_TOKEN` or `GITHUB_ENTERPRISE_TOKEN`).
 */
export function secretsOf(env: Env): string[] {
  return [
    'GEMINI_API_KEY',
    'JULES_API_KEY',
    'GITHUB_TOKEN',
    'GH_TOKEN',
    'GH_ENTERPRISE_TOKEN',
    'GITHUB_ENTERPRISE_TOKEN',
  ]
    .map((k) => envValue(env, k))
    .filter((v) => v.length >= 4);
}

/** `MAKER_REPLAY`: the recording a run's model answers come from (`maker run --replay`), or ''. */
export function replayDir(env: Env): string {
  return envValue(env, 'MAKER_REPLAY');
}
