import { secretsOf, type Env } from './env.js';
import { crashSeam } from './wiring/wiring.js';

/**
 * What a use case reads of the environment, read once at the edge (the CLI's process, the MCP
 * server's constructor): the environment itself, for the settings not parsed yet, the secrets to
 * redact, and the crash tests' checkpoint (one per process, so `<step>@<n>` counts across steps).
 */
export interface Settings {
  readonly env: Env;
  readonly secrets: readonly string[];
  readonly seam?: ((step: string) => void) | undefined;
}

/** The settings `env` gives. */
export function readSettings(env: Env): Settings {
  return { env, secrets: secretsOf(env), seam: crashSeam(env) };
}
