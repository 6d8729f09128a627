import { randomBytes } from 'node:crypto';
import { MakerError } from '../../core/errors.js';
import { GitBatch, lines, untilMarker, type ResponseEnd } from './git-batch.js';

/** One entry of a tree object. */
export interface TreeEntry {
  readonly mode: string;
  readonly name: string;
  readonly id: string;
  /** The name's bytes as git stored them, when read from a tree (a name need not be UTF-8). */
  readonly bytes?: Buffer;
}

/**
 * The long-lived git processes of one repository, each started on first use: `cat-file
 * --batch-command` (objects and ref look-ups), `hash-object -w --stdin-paths` (blobs), `mktree -z
 * --batch` (trees), `diff-tree --stdin` (patches, and raw changes), `update-ref --stdin` (ref
 * moves as compare-and-swap transactions). Every write is content-addressed or checked against
 * the ref's old value, so each is safe to repeat after a crash. {@link close} stops them all.
 */
export class GitPlumbing {
  readonly #objects: GitBatch;
  readonly #hasher: GitBatch;
  readonly #mktree: GitBatch;
  readonly #patches: GitBatch;
  readonly #raw: GitBatch;
  readonly #refs: GitBatch;
  /** Ends a `diff-tree --stdin` answer: echoed back, never a line of a patch (none starts with `.`). */
  readonly #marker = `.maker-end-${randomBytes(6).toString('hex')}`;

  /** `env`: added to each process's environment (a scratch object store: see `object-stores.ts`). */
  constructor(dir: string, env: Readonly<Record<string, string>> = {}) {
    this.#objects = new GitBatch(dir, ['cat-file', '--batch-command'], env);
    this.#hasher = new GitBatch(dir, ['hash-object', '-w', '--stdin-paths'], env);
    this.#mktree = new GitBatch(dir, ['mktree', '-z', '--batch'], env);
    // `git diff`'s defaults for a patch between two trees: binary patches, renames found.
    this.#patches = new GitBatch(dir, ['diff-tree', '--stdin', '-p', '--binary', '-M'], env);
    this.#raw = new GitBatch(dir, ['diff-tree', '--stdin', '-r', '-z', '--no-renames'], env);
    this.#refs = new GitBatch(dir, ['update-ref', '-m', 'maker', '--stdin'], env);
  }

  /** The batch processes, for tests that kill one. */
  get batches(): readonly GitBatch[] {
    return [this.#objects, this.#hasher, this.#mktree, this.#patches, this.#raw, this.#refs];
  }

  async close(): Promise<void> {
    await Promise.all(this.batches.map((b) => b.close()));
  }

  /** Each name's object id, type and size, or undefined where it names nothing (or is ambiguous). */
  async info(
    names: readonly string[],
  ): Promise<({ id: string; type: string; size: number } | undefined)[]> {
    if (names.length === 0) return [];
    const safe = names.map((n) => (/^[^\s]+$/.test(n) ? n : '-'));
    const out = await this.#objects.request(
      safe.map((n) => `info ${n}\n`).join(''),
      lines(names.length),
    );
    return out
      .toString('utf8')
      .split('\n')
      .slice(0, names.length)
      .map((line) => {
        const [id, type, size] = line.split(' ');
        return id !== undefined && type !== undefined && size !== undefined && /^\d+$/.test(size)
          ? { id, type, size: Number(size) }
          : undefined;
      });
  }

  /** The commit `rev` (a ref, `HEAD`, an id) names, or undefined. */
  async resolveCommit(rev: string): Promise<string | undefined> {
    const [found] = await this.info([`${rev}^{commit}`]);
    return found?.type === 'commit' ? found.id : undefined;
  }

  /** The tree of a commit, or a tree id itself; throws `git` when `rev` names neither. */
  async treeOf(rev: string): Promise<string> {
    const [found] = await this.info([`${rev}^{tree}`]);
    if (found?.type !== 'tree')
      throw new MakerError('git', `${rev} does not name a commit or tree in this repository.`);
    return found.id;
  }

  /** Objects by id (each `{type, content}`); missing ones are left out. */
  async contents(ids: readonly string[]): Promise<Map<string, { type: string; content: Buffer }>> {
    const objects = new Map<string, { type: string; content: Buffer }>();
    if (ids.length === 0) return objects;
    const safe = ids.map((n) => (/^[0-9a-f]+$/.test(n) ? n : '-'));
    const out = await this.#objects.request(
      safe.map((id) => `contents ${id}\n`).join(''),
      records(ids.length),
    );
    let at = 0;
    for (let i = 0; i < ids.length; i++) {
      const eol = out.indexOf(0x0a, at);
      const [id, type, size] = out.subarray(at, eol).toString('utf8').split(' ');
      at = eol + 1;
      if (id === undefined || type === undefined || size === undefined) continue; // missing
      objects.set(ids[i] as string, { type, content: out.subarray(at, at + Number(size)) });
      at += Number(size) + 1;
    }
    return objects;
  }

  /** The entries of tree `id` (read from git's own object; nothing is written). */
  async readTree(id: string): Promise<TreeEntry[]> {
    const tree = (await this.contents([id])).get(id);
    if (tree?.type !== 'tree') throw new MakerError('git', `${id} is not a tree.`);
    return parseTree(tree.content, id.length / 2);
  }

  /** Writes each file as a blob (`git hash-object -w`); their ids, in order. */
  async hashFiles(paths: readonly string[]): Promise<string[]> {
    if (paths.length === 0) return [];
    if (paths.some((p) => /[\n\r]/.test(p)))
      throw new MakerError('git', 'A scratch file path has a line break.');
    const out = await this.#hasher.request(`${paths.join('\n')}\n`, lines(paths.length));
    return out.toString('utf8').trim().split('\n');
  }

  /** Writes a tree of `entries` (`git mktree`, which checks every object exists); its id. */
  async mktree(entries: readonly TreeEntry[]): Promise<string> {
    if (entries.some((e) => e.name.includes('\0') || e.name.includes('/') || e.name === ''))
      throw new MakerError('git', 'A tree entry name is empty or has a slash or NUL.');
    const body = entries.flatMap((e) => [
      Buffer.from(`${e.mode} ${objectType(e.mode)} ${e.id}\t`),
      e.bytes ?? Buffer.from(e.name),
      Buffer.from([0]),
    ]);
    const out = await this.#mktree.request(Buffer.concat([...body, Buffer.from([0])]), lines(1));
    return out.toString('utf8').trim();
  }

  /** `git diff --binary` from one tree to another (commits: their trees). */
  async patch(from: string, to: string): Promise<string> {
    const [a, b] = await Promise.all([this.treeOf(from), this.treeOf(to)]);
    const out = await this.#diff(this.#patches, a, b);
    return out.toString('utf8');
  }

  /** `git diff-tree -r -z --no-renames` output from one tree to another (commits: their trees). */
  async rawChanges(from: string, to: string): Promise<Buffer> {
    const [a, b] = await Promise.all([this.treeOf(from), this.treeOf(to)]);
    return this.#diff(this.#raw, a, b);
  }

  /**
   * Moves `ref` to `id` in one transaction; with `expected`, only if it is still there (null: only
   * if it does not exist). Throws `git-ref-moved` otherwise, nothing changed.
   */
  async updateRef(ref: string, id: string, expected?: string | null): Promise<void> {
    if (!/^refs\/[^\s]+$/.test(ref) || !/^[0-9a-f]+$/.test(id))
      throw new MakerError('git', `Not a ref update: ${ref} ${id}.`);
    const old = expected === undefined ? '' : ` ${expected ?? '0'.repeat(id.length)}`;
    if (expected !== undefined && expected !== null && !/^[0-9a-f]+$/.test(expected))
      throw new MakerError('git', `Not an object id: ${expected}.`);
    try {
      const out = await this.#refs.request(
        `start\nupdate ${ref} ${id}${old}\nprepare\ncommit\n`,
        lines(3),
      );
      if (!out.toString('utf8').endsWith('commit: ok\n'))
        throw new MakerError('git', `git update-ref answered: ${out.toString('utf8').trim()}`);
    } catch (error) {
      // A failed compare-and-swap ends the process ("cannot lock ref …: is at X but expected Y").
      if (!/cannot lock ref|unable to resolve reference/.test((error as Error).message))
        throw error;
      throw new MakerError(
        'git-ref-moved',
        `${ref} did not point where expected; it was not moved. ${(error as Error).message}`,
        { cause: error },
      );
    }
  }

  async #diff(batch: GitBatch, a: string, b: string): Promise<Buffer> {
    const out = await batch.request(`${a} ${b}\n${this.#marker}\n`, untilMarker(this.#marker));
    // The answer: the echoed "a b" line, the diff, then the marker line.
    const header = out.indexOf(0x0a);
    return out.subarray(header + 1, out.length - this.#marker.length - 1);
  }
}

/** A response of `count` `cat-file` records: `<id> <type> <size>\n<content>\n`, or `<name> missing\n`. */
function records(count: number): ResponseEnd {
  return (out) => {
    let at = 0;
    for (let i = 0; i < count; i++) {
      const eol = out.indexOf(0x0a, at);
      if (eol < 0) return undefined;
      const size = out.subarray(at, eol).toString('utf8').split(' ')[2];
      at = eol + 1;
      if (size !== undefined) at += Number(size) + 1;
      if (at > out.length) return undefined;
    }
    return at;
  };
}

function objectType(mode: string): string {
  return mode === '040000' ? 'tree' : mode === '160000' ? 'commit' : 'blob';
}

/** A tree object's entries: `<mode> <name>\0<raw id>` each (modes as `ls-tree` spells them). */
function parseTree(content: Buffer, idBytes: number): TreeEntry[] {
  const entries: TreeEntry[] = [];
  let at = 0;
  while (at < content.length) {
    const space = content.indexOf(0x20, at);
    const nul = content.indexOf(0x00, space);
    const mode = content.subarray(at, space).toString('latin1');
    const bytes = Buffer.from(content.subarray(space + 1, nul));
    entries.push({
      mode: mode.padStart(6, '0'),
      name: bytes.toString('utf8'),
      bytes,
      id: content.subarray(nul + 1, nul + 1 + idBytes).toString('hex'),
    });
    at = nul + 1 + idBytes;
  }
  return entries;
}
