import { CREDENTIAL_NAMES } from '../core/credential-names.js';

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
 * MAKER's credentials in the environment (`CREDENTIAL_NAMES`), so logs, journals and recordings can
 * redact them: added to `keys` (a list of keys that grows, such as the process's) where it lacks them.
 */
export function secretsOf(env: Env, keys: string[] = []): string[] {
  const { gemini, jules, github } = CREDENTIAL_NAMES;
  for (const name of [...gemini, ...jules, ...github]) {
    const value = envValue(env, name);
    if (value.length >= 4 && !keys.includes(value)) keys.push(value);
  }
  return keys;
}
