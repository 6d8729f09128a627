import { join } from 'node:path';
import type { StateFile } from '../core/tree/schema.js';
import { STATE_FILE_NAME } from '../core/workspace-files.js';
import { IDENTITY, rootCommitAuthor } from '../adapters/git/git-repo.js';
import { inspectRepository, type RepositoryFacts } from '../adapters/git/inspect.js';
import { WorkspaceLock, type LockOwner } from '../adapters/state/lock.js';
import { makerStateFile } from '../adapters/state/state-file.js';

export type { LockOwner };

/** A workspace this process holds, for its whole life unless released first. */
export interface HeldWorkspace {
  /** The holder whose stale lock was taken over (a process gone without letting go), if any. */
  readonly tookOverFrom: LockOwner | undefined;
  release(): Promise<void>;
}

/** The lock file of `dir`'s workspace. */
const lockPath = (dir: string) => join(dir, `${STATE_FILE_NAME}.lock`);

/**
 * A workspace's lock that a process takes and lets go of itself, not for its whole life (an MCP
 * server's, while something of it works in the repository). Taking it is refused
 * (`workspace-locked`) while another live process holds it.
 */
export interface WorkspaceKey {
  acquire(): Promise<void>;
  release(): Promise<void>;
}

/** `dir`'s workspace lock, for `command` (`mcp`), not taken yet. */
export function workspaceKey(dir: string, command: string): WorkspaceKey {
  return new WorkspaceLock(lockPath(dir), { command });
}

/**
 * Takes `dir`'s workspace for `command` (`run`, `resume`, `demo`…) until this process exits:
 * refused (`workspace-locked`, naming the holder and the way out) while a live process has it.
 */
export async function holdWorkspace(dir: string, command: string): Promise<HeldWorkspace> {
  const lock = new WorkspaceLock(lockPath(dir), { command });
  await lock.holdUntilExit();
  return { tookOverFrom: lock.tookOverFrom, release: () => lock.release() };
}

/**
 * What `dir` is before anything is made there (a repository, a plain folder, a file, nothing), and
 * its state file's content where it can have one.
 */
export async function lookAt(
  dir: string,
): Promise<{ target: RepositoryFacts; state: StateFile | undefined }> {
  const target = await inspectRepository(dir);
  const state =
    target.kind === 'missing' || target.kind === 'file'
      ? undefined
      : await makerStateFile(dir).load();
  return { target, state };
}

/**
 * Whose the initial commit of the repository MAKER made in `dir` is, as the commit says: the
 * person's git identity where one is configured, else MAKER's own (`own`).
 */
export async function initialCommitAuthor(
  dir: string,
): Promise<{ name: string; email: string; own: boolean }> {
  const author = await rootCommitAuthor(dir);
  return { ...author, own: author.name === IDENTITY.name && author.email === IDENTITY.email };
}
