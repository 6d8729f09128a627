import { randomBytes } from 'node:crypto';
import { readFileSync, rmSync } from 'node:fs';
import { link, open, readFile, realpath, rm, stat } from 'node:fs/promises';
import { hostname } from 'node:os';
import { basename, dirname, join } from 'node:path';
import { MakerError } from '../../core/errors.js';
import { currentProcess, processIdentity, type ProcessIdentity } from '../os/process-identity.js';

/** Who holds a workspace lock, as recorded in the lock file. */
export interface LockOwner extends ProcessIdentity {
  /** What the owner is doing (`run`, `resume`, `mcp`…), for messages. */
  readonly command?: string | undefined;
  readonly acquiredAt?: string | undefined;
}

/** A lock file's owner and whether that owner still holds it. */
export interface LockInspection {
  readonly owner: LockOwner;
  /**
   * `live`: the recorded process is running (same pid, same start time, same boot); `stale`: it is
   * gone (or the pid now belongs to another process); `unknown`: it cannot be checked from here.
   */
  readonly state: 'live' | 'stale' | 'unknown';
}

/** Locks held by this process, by the lock file's real path: a second holder in-process is refused too. */
const heldHere = new Map<string, WorkspaceLock>();

/** How long a takeover guard may stand before it counts as abandoned (its writer died mid-takeover). */
const GUARD_STALE_MS = 10_000;

/**
 * A single-writer lock next to the state file, correct within a process and across processes.
 * The lock file appears complete or not at all (written to a temp file, then hard-linked into
 * place, which fails if it exists) and records the owner's pid, process start time and boot id, so
 * a lock whose owner is gone — or whose pid now belongs to another process — is recognised as stale
 * and taken over, under a guard so two processes never take over at once.
 */
export class WorkspaceLock {
  readonly path: string;
  readonly #command: string | undefined;
  #key: string | undefined;
  #token: string | undefined;
  #acquiring: Promise<void> | undefined;
  #tookOverFrom: LockOwner | undefined;

  constructor(path: string, options: { command?: string } = {}) {
    this.path = path;
    this.#command = options.command;
  }

  get held(): boolean {
    return this.#token !== undefined;
  }

  /** The owner of a stale lock this holder took over (a process that died holding it), if any. */
  get tookOverFrom(): LockOwner | undefined {
    return this.#tookOverFrom;
  }

  /** Takes the lock, or throws `workspace-locked` naming its live owner and the way out. */
  acquire(): Promise<void> {
    if (this.held) return Promise.resolve();
    this.#acquiring ??= this.#acquire().finally(() => (this.#acquiring = undefined));
    return this.#acquiring;
  }

  async #acquire(): Promise<void> {
    const key = await lockKey(this.path);
    const holder = heldHere.get(key);
    if (holder !== undefined && holder !== this)
      throw new MakerError(
        'workspace-locked',
        `This process already works on this workspace (${this.path}${key === this.path ? '' : `, which is ${key}`}): use the engine that holds it.`,
      );
    // Claimed in-process before the first await, so concurrent callers here cannot both proceed.
    heldHere.set(key, this);
    try {
      await this.#create(key);
    } catch (error) {
      if (heldHere.get(key) === this) heldHere.delete(key);
      throw error;
    }
  }

  async #create(key: string): Promise<void> {
    const token = randomBytes(8).toString('hex');
    const owner: LockOwner & { token: string } = {
      ...currentProcess(),
      ...(this.#command === undefined ? {} : { command: this.#command }),
      acquiredAt: new Date().toISOString(),
      token,
    };
    for (let attempt = 0; attempt < 3; attempt++) {
      if (await createExclusive(key, `${JSON.stringify(owner)}\n`)) {
        this.#key = key;
        this.#token = token;
        return;
      }
      const found = await inspectLock(key);
      if (found !== undefined && found.state !== 'stale') throw lockedError(this.path, found);
      if (found !== undefined) this.#tookOverFrom = found.owner;
      await takeOverStale(key);
    }
    throw new MakerError(
      'workspace-locked',
      `Could not take the workspace lock ${this.path}: another process keeps taking it.`,
    );
  }

  /** Acquires the lock for the rest of this process: it is removed when the process exits. */
  async holdUntilExit(): Promise<void> {
    await this.acquire();
    process.once('exit', () => this.#releaseSync());
  }

  /** Removes the lock file if it is still this holder's (never another process's). */
  async release(): Promise<void> {
    const key = this.#key;
    const token = this.#token;
    if (key === undefined || token === undefined) return;
    this.#key = this.#token = undefined;
    if (heldHere.get(key) === this) heldHere.delete(key);
    const current = await readFile(key, 'utf8').catch(() => '');
    if (parseOwner(current)?.token === token) await rm(key, { force: true });
  }

  #releaseSync(): void {
    const key = this.#key;
    const token = this.#token;
    if (key === undefined || token === undefined) return;
    this.#key = this.#token = undefined;
    heldHere.delete(key);
    try {
      if (parseOwner(readFileSync(key, 'utf8'))?.token === token) rmSync(key, { force: true });
    } catch {
      // Already gone.
    }
  }

  /** Who holds the lock at `path`, or undefined when nobody does. */
  static async inspect(path: string): Promise<LockInspection | undefined> {
    return inspectLock(await lockKey(path));
  }
}

async function lockKey(path: string): Promise<string> {
  // The directory's real path: a symlinked or relative spelling of the workspace is the same lock.
  const dir = await realpath(dirname(path)).catch(() => dirname(path));
  return join(dir, basename(path));
}

/** Creates `path` with `content` unless it exists; false when it does. The file is complete when it appears. */
async function createExclusive(path: string, content: string): Promise<boolean> {
  const temp = `${path}.${process.pid}.${randomBytes(4).toString('hex')}.tmp`;
  const handle = await open(temp, 'wx');
  try {
    await handle.writeFile(content);
    await handle.sync();
  } finally {
    await handle.close();
  }
  try {
    await link(temp, path);
    return true;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'EEXIST') return false;
    throw error;
  } finally {
    await rm(temp, { force: true });
  }
}

async function inspectLock(path: string): Promise<LockInspection | undefined> {
  let text: string;
  try {
    text = await readFile(path, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw error;
  }
  const owner = parseOwner(text);
  // Unreadable content (a torn write from before locks were written whole, or a foreign file).
  if (owner === undefined) return { owner: { pid: 0 }, state: 'stale' };
  return { owner, state: ownerState(owner) };
}

function ownerState(owner: LockOwner): LockInspection['state'] {
  if (owner.hostname !== undefined && owner.hostname !== hostname()) return 'unknown';
  const now = processIdentity(owner.pid);
  if (now === undefined) return 'stale';
  if (owner.bootId !== undefined && now.bootId !== undefined && owner.bootId !== now.bootId)
    return 'stale';
  if (owner.startTime === undefined || now.startTime === undefined)
    return now.alive === 'unknown' ? 'unknown' : 'live';
  return owner.startTime === now.startTime ? 'live' : 'stale';
}

/** Removes a stale lock, under a guard file so that only one process takes over at a time. */
async function takeOverStale(path: string): Promise<void> {
  const guard = `${path}.takeover`;
  if (!(await createExclusive(guard, `${process.pid}\n`))) {
    const age = await stat(guard).then(
      (s) => Date.now() - s.mtimeMs,
      () => 0,
    );
    if (age > GUARD_STALE_MS) await rm(guard, { force: true });
    await new Promise((resolve) => setTimeout(resolve, 20));
    return;
  }
  try {
    const found = await inspectLock(path);
    if (found?.state === 'stale') await rm(path, { force: true });
  } finally {
    await rm(guard, { force: true });
  }
}

function parseOwner(text: string): (LockOwner & { token?: string }) | undefined {
  // An older maker wrote the bare pid: honoured, without a start time to check it against.
  if (/^\d+\s*$/.test(text)) return { pid: Number(text.trim()) };
  try {
    const value: unknown = JSON.parse(text);
    if (typeof value !== 'object' || value === null) return undefined;
    const record = value as Record<string, unknown>;
    if (typeof record['pid'] !== 'number' || !Number.isInteger(record['pid'])) return undefined;
    const str = (k: string) => (typeof record[k] === 'string' ? record[k] : undefined);
    return {
      pid: record['pid'],
      startTime: str('startTime'),
      bootId: str('bootId'),
      hostname: str('hostname'),
      command: str('command'),
      acquiredAt: str('acquiredAt'),
      token: str('token'),
    };
  } catch {
    return undefined;
  }
}

/** The workspace is another live process's: who it is, for messages that know what the caller wanted. */
export class WorkspaceLockedError extends MakerError {
  override readonly name = 'WorkspaceLockedError';
  readonly owner: LockOwner;
  constructor(message: string, owner: LockOwner) {
    super('workspace-locked', message);
    this.owner = owner;
  }
}

function lockedError(path: string, found: LockInspection): MakerError {
  const { owner } = found;
  const what = owner.command === undefined ? 'Another maker process' : `maker ${owner.command}`;
  const since = owner.acquiredAt === undefined ? '' : ` since ${owner.acquiredAt}`;
  const unsure =
    found.state === 'unknown'
      ? ` Its owner cannot be checked from here (host ${owner.hostname ?? 'unknown'}).`
      : '';
  return new WorkspaceLockedError(
    `${what} (pid ${owner.pid}${since}) is working on this workspace.${unsure} Use that one, or stop it first (kill ${owner.pid}). If you are sure no maker process uses this workspace, delete ${path}.`,
    owner,
  );
}
