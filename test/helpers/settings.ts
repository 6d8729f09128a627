import { readSettings } from '../../src/app/settings.js';
import type { Env } from '../../src/app/env.js';
import type { WorkspaceSettings } from '../../src/app/wiring/wiring.js';

/**
 * A test workspace's settings: `env` for its checks and installs (a registry, a locale; none of
 * the developer's keys unless given), and this machine's own sandbox, found as a run finds it (the
 * test process's PATH and `MAKER_SANDBOX`). No crash seam.
 */
export function workspaceSettings(env: Env = process.env): WorkspaceSettings {
  return { env, sandbox: readSettings(process.env).sandbox };
}
