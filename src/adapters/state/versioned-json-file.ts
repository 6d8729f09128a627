import { readFile, stat } from 'node:fs/promises';
import type { ZodType } from 'zod';
import { MakerError } from '../../core/errors.js';
import { DurableFile } from './durable-file.js';

/** Why a state file could not be used. The file is never written after any of these. */
export type StateFileProblem = 'unreadable' | 'corrupt' | 'foreign' | 'newer' | 'invalid';

/** A state file that exists but cannot be used as it is. Names the file and what is wrong. */
export class StateFileError extends MakerError {
  override readonly name = 'StateFileError';
  readonly path: string;
  readonly problem: StateFileProblem;

  readonly detail: string;

  constructor(
    path: string,
    problem: StateFileProblem,
    detail: string,
    cause?: unknown,
    hint?: string,
  ) {
    super(
      `state-${problem}`,
      `${path}: ${detail} The file was left untouched.${hint === undefined ? '' : ` ${hint}`}`,
      { cause },
    );
    this.path = path;
    this.problem = problem;
    this.detail = detail;
  }
}

/** Upgrades a document of version `from` to `from + 1`. */
export type Migration = (document: Record<string, unknown>) => Record<string, unknown>;

export interface VersionedJsonFileOptions<T> {
  readonly path: string;
  /** Validates the current version; only fields it knows survive a save. */
  readonly schema: ZodType<T>;
  readonly currentVersion: number;
  /** `migrations[v]` upgrades version v to v + 1, for every v from the oldest supported up. */
  readonly migrations?: Readonly<Record<number, Migration>>;
  /** The document to start from when the file does not exist yet. */
  readonly empty: () => T;
  /** A word for error messages, e.g. "MAKER state". */
  readonly description?: string;
  /** Turns the document into JSON text (default `JSON.stringify`); must round-trip through the schema. */
  readonly serialize?: (document: T) => string;
  /**
   * Completes the document read from the file, e.g. from a companion log written in the file's own
   * version: before it is migrated (and validated). Its errors propagate as they are.
   */
  readonly complete?: (document: Record<string, unknown>) => Promise<Record<string, unknown>>;
}

/**
 * A JSON document on disk with a `$schemaVersion`, read through zod and written durably (see
 * {@link DurableFile}: a crash or power loss leaves the old or the new file, never half of one, and
 * the previous version stays as `<path>.bak`). A file that cannot be parsed, is not ours, is from a
 * newer version, or does not fit the schema is refused with a {@link StateFileError}, which names
 * the backup when it reads correctly, and is never overwritten: `save` is only allowed after a
 * successful `load`.
 */
export class VersionedJsonFile<T extends { readonly $schemaVersion: number }> {
  readonly #options: VersionedJsonFileOptions<T>;
  readonly #file: DurableFile;
  #loaded = false;

  constructor(options: VersionedJsonFileOptions<T>) {
    this.#options = options;
    this.#file = new DurableFile(options.path);
  }

  get path(): string {
    return this.#options.path;
  }

  /** Reads, migrates and validates the file; a missing file gives `empty()`. */
  async load(): Promise<T> {
    try {
      return await this.#load();
    } catch (error) {
      if (!(error instanceof StateFileError) || error.problem === 'newer') throw error;
      const hint = await this.#backupHint();
      if (hint === undefined) throw error;
      throw new StateFileError(error.path, error.problem, error.detail, error.cause, hint);
    }
  }

  /** Where a usable previous version is, and how to restore it; undefined when there is none. */
  async #backupHint(): Promise<string | undefined> {
    const backup = this.#file.backupPath;
    const text = await readFile(backup, 'utf8').catch(() => undefined);
    if (text === undefined) return undefined;
    try {
      const json: unknown = JSON.parse(text);
      const version = (json as { $schemaVersion?: unknown }).$schemaVersion;
      if (typeof version !== 'number' || version > this.#options.currentVersion) return undefined;
      if (
        !this.#options.schema.safeParse(this.#migrate(json as Record<string, unknown>, version))
          .success
      )
        return undefined;
    } catch {
      return undefined;
    }
    const when = (await stat(backup)).mtime.toISOString();
    return `The previous version (${backup}, saved ${when}) reads correctly: restore it with  mv "${backup}" "${this.#options.path}"  and resume.`;
  }

  async #load(): Promise<T> {
    const { path, schema, currentVersion } = this.#options;
    const what = this.#options.description ?? 'state';
    let text: string;
    try {
      text = await readFile(path, 'utf8');
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') {
        this.#loaded = true;
        return this.#options.empty();
      }
      throw new StateFileError(
        path,
        'unreadable',
        `cannot read the ${what} file (${(error as Error).message}).`,
        error,
      );
    }
    let json: unknown;
    try {
      json = JSON.parse(text);
    } catch (error) {
      const hint =
        text.trim() === '' ? 'it is empty' : `it is not valid JSON (${(error as Error).message})`;
      throw new StateFileError(
        path,
        'corrupt',
        `cannot use the ${what} file: ${hint}. Move it aside to start afresh, or restore a backup.`,
        error,
      );
    }
    if (
      typeof json !== 'object' ||
      json === null ||
      Array.isArray(json) ||
      !('$schemaVersion' in json)
    ) {
      throw new StateFileError(
        path,
        'foreign',
        `this is not a ${what} file (no "$schemaVersion" field). Use another path, or move the file aside.`,
      );
    }
    const version = json.$schemaVersion;
    if (typeof version !== 'number' || !Number.isInteger(version) || version < 1) {
      throw new StateFileError(
        path,
        'foreign',
        `"$schemaVersion" is ${JSON.stringify(version)}, not a version this program writes.`,
      );
    }
    if (version > currentVersion) {
      throw new StateFileError(
        path,
        'newer',
        `the ${what} file is schema version ${version}, newer than this program understands (${currentVersion}). Upgrade maker to continue this run.`,
      );
    }
    // What completes the snapshot (its log) was written in the snapshot's version: applied first.
    let document: Record<string, unknown> = json;
    if (this.#options.complete !== undefined) document = await this.#options.complete(document);
    document = this.#migrate(document, version);
    const parsed = schema.safeParse(document);
    if (!parsed.success) {
      const problems = parsed.error.issues
        .slice(0, 3)
        .map((issue) => `${issue.path.join('.') || '(root)'}: ${issue.message}`)
        .join('; ');
      throw new StateFileError(
        path,
        'invalid',
        `the ${what} file does not match schema version ${currentVersion}: ${problems}.`,
      );
    }
    this.#loaded = true;
    return parsed.data;
  }

  /** Writes the whole document atomically. Refuses before a successful `load`. */
  async save(document: T): Promise<void> {
    if (!this.#loaded) {
      throw new MakerError(
        'state-not-loaded',
        `${this.#options.path}: refusing to write a state file that was not read successfully first.`,
      );
    }
    const serialize = this.#options.serialize ?? ((d: T) => JSON.stringify(d));
    await this.writeText(serialize(document));
  }

  /**
   * Writes JSON text already serialised (it must be a valid document), whole or in pieces written
   * in order, atomically. Refuses before a successful `load`.
   */
  async writeText(text: string | readonly string[]): Promise<void> {
    if (!this.#loaded) {
      throw new MakerError(
        'state-not-loaded',
        `${this.#options.path}: refusing to write a state file that was not read successfully first.`,
      );
    }
    await this.#file.write(typeof text === 'string' ? `${text}\n` : [...text, '\n']);
  }

  #migrate(document: Record<string, unknown>, from: number): Record<string, unknown> {
    let current = document;
    for (let version = from; version < this.#options.currentVersion; version++) {
      const migration = this.#options.migrations?.[version];
      if (migration === undefined) {
        throw new StateFileError(
          this.#options.path,
          'newer',
          `no migration from schema version ${version}; this file cannot be upgraded by this program.`,
        );
      }
      current = { ...migration(current), $schemaVersion: version + 1 };
    }
    return current;
  }
}
