/**
 * What a code candidate may change, decided once, on the tree the candidate produces (never on a
 * diff's headers, which a hostile or confused patch can misstate): the changes git reports between
 * the base and the candidate's tree, and the new contents. The rules that judge them are in
 * `red-flags/` (`tree` and `content` scopes).
 */

/** One path whose entry differs between the base tree and the candidate's tree. */
export interface TreeChange {
  readonly path: string;
  readonly status: 'added' | 'modified' | 'deleted' | 'type-changed';
  /** git modes: 100644 file, 100755 executable, 120000 symlink, 160000 submodule (gitlink). */
  readonly oldMode?: string | undefined;
  readonly newMode?: string | undefined;
  readonly oldBlob?: string | undefined;
  readonly newBlob?: string | undefined;
  /** Size in bytes of the new blob. */
  readonly newSize?: number | undefined;
}

/** What a run allows beyond the defaults, for subtasks that legitimately need it. */
export interface PolicyAllowances {
  /** Globs of paths that may be (or become) executable. */
  readonly executables?: readonly string[] | undefined;
  /** Globs of paths that may be symbolic links. */
  readonly symlinks?: readonly string[] | undefined;
  /** Whether CI workflows (`.github/workflows/`) may be written: they run with the repository's secrets. */
  readonly workflows?: boolean | undefined;
  /**
   * Whether files that steer the person's own package installs may be written: package managers'
   * settings ({@link INSTALL_SETTINGS}) and `node_modules/`.
   */
  readonly installFiles?: boolean | undefined;
}

/**
 * Package managers' settings, by name, in any directory (names compared ignoring case, as a
 * case-insensitive file system opens them): npm reads `.npmrc` from a project's root, which in a
 * monorepo is any directory with a package.json; yarn reads `.yarnrc`/`.yarnrc.yml` up the
 * directory tree; pip reads `pip.conf` (`pip.ini` on Windows) from a virtual environment, which may
 * sit anywhere in the repository; `.pypirc` holds upload settings. Landed, they steer the person's
 * own next install (`registry=`, `ignore-scripts=false`, `index-url`).
 */
export const INSTALL_SETTINGS: readonly string[] = [
  '.npmrc',
  '.yarnrc',
  '.yarnrc.yml',
  '.pypirc',
  'pip.conf',
  'pip.ini',
];

/** Whether a path is a package manager's settings file or inside a `node_modules/` directory. */
export function isInstallFile(path: string): boolean {
  const parts = path.toLowerCase().split('/');
  return INSTALL_SETTINGS.includes(parts[parts.length - 1] ?? '') || parts.includes('node_modules');
}

export interface CandidatePolicy {
  /** Paths the subtask may touch; empty means the whole repository. */
  readonly scope: readonly string[];
  readonly allow?: PolicyAllowances | undefined;
  /** Largest file a candidate may write, in bytes. */
  readonly maxFileBytes: number;
}

/** MAKER's own files in a workspace: never written by a candidate (landing would overwrite them). */
export const MAKER_FILES: readonly string[] = [
  'maker-state.json',
  'maker-state.json.bak',
  'maker-state.json.log',
  'maker-state.json.lock',
  'maker-journal.jsonl',
  'maker-calibration.json',
  '.maker-state.json.tmp',
];

export const isMakerFile = (path: string) =>
  MAKER_FILES.includes(path) || /^\.?maker-(state|journal|calibration)[^/]*$/.test(path);

/** Every proper ancestor directory of a path: `a/b/c` → `a`, `a/b`. */
export function ancestors(path: string): string[] {
  const parts = path.split('/');
  return parts.slice(1).map((_, i) => parts.slice(0, i + 1).join('/'));
}

/** A written file's new content, and the old one when it existed (so only what the candidate adds counts). */
export interface WrittenContent {
  readonly path: string;
  readonly before?: Uint8Array | undefined;
  readonly after: Uint8Array;
}
