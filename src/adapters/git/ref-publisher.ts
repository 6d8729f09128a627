import { ApiCallError, RefMovedError, UsageError, redactSecrets } from '../../core/errors.js';
import type { RefPublisher } from '../../ports/ref-publisher.js';
import { gitSaid, remoteSaid } from '../../core/remote-said.js';
import { runGit, type GitRunner } from './git-process.js';

export interface BatchRefPublisherOptions {
  /** The local repository holding the commits to publish. */
  readonly cwd: string;
  /** The remote's URL, without credentials. */
  readonly remoteUrl: string;
  /** Environment for each git process (authentication, see `gitAuthEnv`); asked for per push. */
  readonly env?: () => Readonly<Record<string, string>>;
  /** What was last published per branch, as saved with the run. */
  readonly leases?: Readonly<Record<string, string>>;
  /**
   * Told every time the leases change, with all of them, before the publications resolve: save
   * them with the run, so a resumed run leases on what it really pushed.
   */
  readonly onLeases?: (leases: Readonly<Record<string, string>>) => void | Promise<void>;
  readonly git?: GitRunner;
  /** A push (or `ls-remote`) still running after this long is stopped and fails (default 10 min). */
  readonly timeoutMs?: number;
  /** Strings (a token) no error may contain. */
  readonly secrets?: readonly string[];
}

interface Pending {
  /** Null deletes. */
  sha: string | null;
  readonly waiters: { resolve: () => void; reject: (error: unknown) => void }[];
}

/** A porcelain line of `git push`: flag, destination ref, summary. */
interface PushLine {
  readonly flag: string;
  readonly summary: string;
}

/**
 * {@link RefPublisher} over git: the branches asked for at one moment go out in one
 * `git push --porcelain` (many refspecs), each with `--force-with-lease=<ref>:<last published>`
 * (empty: must not exist yet). Per-ref results come from the porcelain output; a ref someone else
 * moved rejects with {@link RefMovedError} alone while the others land. Pushes are serialised, so
 * each batch leases on what the previous one published.
 */
export class BatchRefPublisher implements RefPublisher {
  readonly #o: BatchRefPublisherOptions;
  readonly #git: GitRunner;
  readonly #leases: Map<string, string>;
  /** Commits sent per branch by pushes whose outcome is unknown (no answer): maker's own if found there. */
  readonly #unsure = new Map<string, Set<string>>();
  /** Branches found absent after a broken lease, and pushed again from nothing (once each). */
  readonly #freed = new Set<string>();
  #pending = new Map<string, Pending>();
  #scheduled = false;
  #running = false;

  constructor(options: BatchRefPublisherOptions) {
    this.#o = options;
    this.#git = options.git ?? runGit;
    this.#leases = new Map(Object.entries(options.leases ?? {}));
  }

  publish(branch: string, sha: string): Promise<void> {
    if (!/^[0-9a-f]{40}([0-9a-f]{24})?$/.test(sha))
      return Promise.reject(new UsageError(`Not a commit id: "${sha}".`));
    return this.#enqueue(branch, sha);
  }

  /** Deletes `branch`; one this publisher never published (no lease) is left alone. */
  remove(branch: string): Promise<void> {
    if (!this.#leases.has(branch) && !this.#pending.has(branch)) return Promise.resolve();
    return this.#enqueue(branch, null);
  }

  leases(): Readonly<Record<string, string>> {
    return Object.fromEntries(this.#leases);
  }

  #enqueue(branch: string, sha: string | null): Promise<void> {
    if (!validBranch(branch))
      return Promise.reject(new UsageError(`Not a branch name maker publishes: "${branch}".`));
    const pending = this.#pending.get(branch);
    if (pending === undefined && (this.#leases.get(branch) ?? null) === sha)
      return Promise.resolve();
    return new Promise<void>((resolve, reject) => {
      const entry = pending ?? { sha, waiters: [] };
      // The latest wish for a branch wins; everyone waiting on it learns the outcome.
      entry.sha = sha;
      entry.waiters.push({ resolve, reject });
      this.#pending.set(branch, entry);
      this.#schedule();
    });
  }

  /** The batch goes out once this moment has passed, or when the push in flight ends. */
  #schedule(): void {
    if (this.#scheduled || this.#running) return;
    this.#scheduled = true;
    setImmediate(() => {
      this.#scheduled = false;
      void this.#flush();
    });
  }

  async #flush(): Promise<void> {
    if (this.#running || this.#pending.size === 0) return;
    this.#running = true;
    const batch = this.#pending;
    this.#pending = new Map();
    try {
      await this.#push(batch);
    } finally {
      this.#running = false;
      if (this.#pending.size > 0) this.#schedule();
    }
  }

  async #push(batch: Map<string, Pending>): Promise<void> {
    const env = this.#o.env?.() ?? {};
    const args = ['push', '--porcelain', '--no-verify'];
    for (const branch of batch.keys())
      args.push(`--force-with-lease=refs/heads/${branch}:${this.#leases.get(branch) ?? ''}`);
    args.push(this.#o.remoteUrl);
    for (const [branch, { sha }] of batch) args.push(`${sha ?? ''}:refs/heads/${branch}`);

    const outcomes = new Map<string, Error | null>();
    try {
      const run = await this.#git(args, { cwd: this.#o.cwd, env, timeoutMs: this.#timeout() });
      const lines = parsePorcelain(run.stdout);
      const stale: string[] = [];
      for (const [branch, { sha }] of batch) {
        const line = lines.get(`refs/heads/${branch}`);
        if (line === undefined) {
          this.#sentUnsure(branch, sha);
          outcomes.set(branch, this.#pushFailure(run.stderr, [...batch.keys()]));
        } else if (line.flag !== '!') {
          this.#setLease(branch, sha);
          outcomes.set(branch, null);
        } else if (/stale info|fetch first|non-fast-forward/.test(line.summary)) stale.push(branch);
        else
          outcomes.set(
            branch,
            new ApiCallError(
              'git',
              this.#clean(
                `The remote refused branch ${branch}: ${line.summary}.${remoteSaid(run.stderr)}`,
              ),
            ),
          );
      }
      if (stale.length > 0) await this.#settleStale(batch, stale, env, outcomes);
      if (outcomes.size > 0 && [...outcomes.values()].some((e) => e === null))
        await this.#o.onLeases?.(this.leases());
    } catch (error) {
      for (const [branch, { sha }] of batch) {
        this.#sentUnsure(branch, sha);
        outcomes.set(branch, error as Error);
      }
    }
    // Branches found at a commit an unanswered push of maker's sent: leased there, pushed again.
    const again = new Map([...batch].filter(([branch]) => !outcomes.has(branch)));
    if (again.size > 0) await this.#push(again);
    for (const [branch, { waiters }] of batch) {
      if (again.has(branch)) continue;
      const error = outcomes.get(branch) ?? null;
      for (const w of waiters) {
        if (error === null) w.resolve();
        else w.reject(error);
      }
    }
  }

  /**
   * Refs whose lease was broken: one `ls-remote` tells where they are. One already where maker
   * wanted it is published; one at a commit a push of maker's sent without hearing back is leased
   * there and left without an outcome (the caller pushes it again); any other was moved by someone
   * else.
   */
  async #settleStale(
    batch: Map<string, Pending>,
    stale: readonly string[],
    env: Readonly<Record<string, string>>,
    outcomes: Map<string, Error | null>,
  ): Promise<void> {
    const run = await this.#git(
      ['ls-remote', this.#o.remoteUrl, ...stale.map((b) => `refs/heads/${b}`)],
      { cwd: this.#o.cwd, env, timeoutMs: this.#timeout() },
    );
    if (run.code !== 0) {
      for (const branch of stale) outcomes.set(branch, this.#pushFailure(run.stderr, stale));
      return;
    }
    const actual = new Map<string, string>();
    for (const line of run.stdout.split('\n')) {
      const [sha, ref] = line.split('\t');
      if (sha !== undefined && ref !== undefined) actual.set(ref, sha);
    }
    for (const branch of stale) {
      const wanted = batch.get(branch)?.sha ?? null;
      const now = actual.get(`refs/heads/${branch}`) ?? null;
      if (now === wanted) {
        this.#freed.delete(branch);
        this.#setLease(branch, wanted);
        outcomes.set(branch, null);
      } else if (now === null && wanted !== null && !this.#freed.has(branch)) {
        // Absent (deleted, as the moved-branch message suggests): free. Pushed again, leased on
        // nothing; once only, so a remote that keeps refusing cannot loop.
        this.#freed.add(branch);
        this.#setLease(branch, null);
      } else if (now !== null && this.#unsure.get(branch)?.has(now) === true) {
        this.#setLease(branch, now);
        this.#unsure.get(branch)?.delete(now);
      } else outcomes.set(branch, new RefMovedError(branch, this.#leases.get(branch) ?? null, now));
    }
  }

  #timeout(): number {
    return this.#o.timeoutMs ?? 600_000;
  }

  #sentUnsure(branch: string, sha: string | null): void {
    if (sha === null) return;
    const sent = this.#unsure.get(branch) ?? new Set<string>();
    sent.add(sha);
    this.#unsure.set(branch, sent);
  }

  #setLease(branch: string, sha: string | null): void {
    if (sha === null) this.#leases.delete(branch);
    else this.#leases.set(branch, sha);
  }

  /** A push that failed as a whole (authentication, network): one error for every ref in it. */
  #pushFailure(stderr: string, branches: readonly string[]): Error {
    const text = this.#clean(gitSaid(stderr, 3));
    const where = `${this.#remote()} (${branches.length} branch${branches.length === 1 ? '' : 'es'})`;
    if (/Authentication failed|could not read Username|returned error: 40[13]|denied/i.test(stderr))
      return new ApiCallError(
        'git',
        `git push to ${where} was refused: the token cannot write there. It needs the Contents: Read and write permission (classic token: the repo scope). git said: ${text}`,
        { status: 403 },
      );
    return new ApiCallError('git', `git push to ${where} failed: ${text}`, { isRetryable: true });
  }

  #remote(): string {
    try {
      const url = new URL(this.#o.remoteUrl);
      url.username = '';
      url.password = '';
      return url.toString();
    } catch {
      return this.#o.remoteUrl;
    }
  }

  #clean(text: string): string {
    return redactSecrets(text, this.#o.secrets ?? []);
  }
}

function parsePorcelain(stdout: string): Map<string, PushLine> {
  const lines = new Map<string, PushLine>();
  for (const line of stdout.split('\n')) {
    const match = /^([ +\-*!=])\t[^\t]*?:(refs\/[^\t]+)\t(.*)$/.exec(line);
    if (match !== null)
      lines.set(match[2] as string, { flag: match[1] as string, summary: match[3] as string });
  }
  return lines;
}

/** A plain branch name (what maker publishes): no `..`, no leading `-` or `/`, no `.lock` end. */
function validBranch(branch: string): boolean {
  return (
    /^[A-Za-z0-9_][A-Za-z0-9._/-]*$/.test(branch) &&
    !branch.includes('..') &&
    !branch.includes('//') &&
    !branch.endsWith('/') &&
    !branch.endsWith('.lock')
  );
}
