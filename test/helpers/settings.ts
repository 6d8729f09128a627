import { findSandbox, type CheckSandbox } from '../../src/adapters/sandbox/bwrap.js';
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

/**
 * This machine's sandbox, found as a run finds it (the test process's PATH and `MAKER_SANDBOX`),
 * or the kind `choice` names; undefined where none works.
 */
export function machineSandbox(choice?: string): Promise<CheckSandbox | undefined> {
  const where = readSettings(process.env).sandbox;
  return findSandbox(where.path, choice ?? where.choice);
}
