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
