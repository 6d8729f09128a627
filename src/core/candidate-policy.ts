import { AWS_SECRET_ACCESS_KEY } from './credential-formats.js';
import { inScope, normalizeRepoPath, showPath as show } from './paths.js';
import { LIMITS } from './limits.js';
import type { RedFlag } from './voting/types.js';

/**
 * What a code candidate may change, decided once, on the tree the candidate produces (never on a
 * diff's headers, which a hostile or confused patch can misstate). Pure functions over the
 * changes git reports between the base and the candidate's tree, and over the new contents.
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

/**
 * Red flags for the changes a candidate's tree makes: unsafe or non-canonical names, MAKER's own
 * files, submodules, symlinks and new executables (unless allowed), writes through a symlink the
 * base has, CI workflows and files that steer installs (unless allowed), `.gitmodules`, oversized files, and paths outside the
 * subtask's scope — renames and deletions included, since both ends are changes of the tree.
 * `baseSymlinks` are the symlinks of the base tree among the changed paths' ancestors.
 */
export function treeRedFlags(
  changes: readonly TreeChange[],
  policy: CandidatePolicy,
  baseSymlinks: ReadonlySet<string> = new Set(),
): RedFlag[] {
  if (changes.length === 0)
    return [{ rule: 'empty-patch', message: 'The candidate changes nothing.' }];
  const flags: RedFlag[] = [];
  const flag = (rule: string, paths: readonly string[], why: string) => {
    if (paths.length > 0)
      flags.push({
        rule,
        message: `The candidate ${why}: ${paths.slice(0, 5).map(show).join(', ')}${paths.length > 5 ? ` and ${paths.length - 5} more` : ''}.`,
      });
  };
  const allow = policy.allow ?? {};
  const unsafe = changes.filter((c) => {
    const normal = normalizeRepoPath(c.path);
    return !normal.ok || normal.path !== c.path;
  });
  for (const c of unsafe) {
    const normal = normalizeRepoPath(c.path);
    flags.push({
      rule: 'unsafe-path',
      message: `The candidate writes ${show(c.path)}: ${normal.ok ? 'a path that is not in canonical form' : normal.reason}.`,
    });
  }
  const safe = changes.filter((c) => !unsafe.includes(c));
  const written = safe.filter((c) => c.status !== 'deleted');
  flag(
    'maker-file',
    safe.filter((c) => isMakerFile(c.path)).map((c) => c.path),
    "writes MAKER's own state files",
  );
  flag(
    'submodule',
    written.filter((c) => c.newMode === '160000').map((c) => c.path),
    'adds a submodule (gitlink)',
  );
  flag(
    'submodule',
    safe
      .filter((c) => c.path === '.gitmodules' || c.path.endsWith('/.gitmodules'))
      .map((c) => c.path),
    'writes submodule configuration',
  );
  flag(
    'symlink',
    written
      .filter((c) => c.newMode === '120000' && !matches(c.path, allow.symlinks))
      .map((c) => c.path),
    'adds a symbolic link (allow it with the run’s symlink allowance)',
  );
  flag(
    'executable',
    written
      .filter(
        (c) =>
          c.newMode === '100755' && c.oldMode !== '100755' && !matches(c.path, allow.executables),
      )
      .map((c) => c.path),
    'makes a file executable that the run does not allow (allow it with the run’s executable allowance)',
  );
  flag(
    'through-symlink',
    safe.filter((c) => ancestors(c.path).some((a) => baseSymlinks.has(a))).map((c) => c.path),
    'writes through a symbolic link the repository has',
  );
  if (allow.workflows !== true)
    flag(
      'ci-workflow',
      safe.filter((c) => c.path.startsWith('.github/workflows/')).map((c) => c.path),
      'writes CI workflows, which run with the repository’s secrets (allow them for the run if the task needs it)',
    );
  if (allow.installFiles !== true)
    flag(
      'install-files',
      safe.filter((c) => isInstallFile(c.path)).map((c) => c.path),
      'changes files that steer package installs (package-manager settings, node_modules/), which the person’s own next install would obey (allow them for the run if the task needs it)',
    );
  if (changes.length > LIMITS.candidateFiles)
    flags.push({
      rule: 'too-many-files',
      message: `The candidate touches ${changes.length} files, over the limit of ${LIMITS.candidateFiles} a candidate may write or delete.`,
    });
  flag(
    'oversized-file',
    written
      .filter((c) => c.newSize !== undefined && c.newSize > policy.maxFileBytes)
      .map((c) => `${c.path} (${c.newSize} bytes)`),
    `writes files over ${policy.maxFileBytes} bytes`,
  );
  if (policy.scope.length > 0)
    flag(
      'out-of-scope',
      safe.filter((c) => !inScope(c.path, policy.scope)).map((c) => c.path),
      `touches paths outside the subtask's files (${policy.scope.join(', ')})`,
    );
  return flags;
}

/** Every proper ancestor directory of a path: `a/b/c` → `a`, `a/b`. */
export function ancestors(path: string): string[] {
  const parts = path.split('/');
  return parts.slice(1).map((_, i) => parts.slice(0, i + 1).join('/'));
}

const SECRET_PATTERNS: readonly RegExp[] = [
  /AIza[0-9A-Za-z_-]{35}/g,
  /gh[pousr]_[0-9A-Za-z]{36}/g,
  /github_pat_[0-9A-Za-z_]{40,}/g,
  /AKIA[0-9A-Z]{16}/g,
  /-----BEGIN (?:RSA |EC |OPENSSH |DSA |ENCRYPTED )?PRIVATE KEY-----/g,
  /xox[baprs]-[0-9A-Za-z-]{10,}/g,
];

/** How a redaction begins (`[REDACTED:<rule>]`): a candidate that adds one copied what it was not shown. */
const REDACTED = '[REDACTED:';

/** A written file's new content, and the old one when it existed (so only what the candidate adds counts). */
export interface WrittenContent {
  readonly path: string;
  readonly before?: Uint8Array | undefined;
  readonly after: Uint8Array;
}

/**
 * Red flags on what a candidate writes, binary files included: credentials (known formats, the
 * bare AWS secret key in its context, and the run's own configured keys, whatever their length)
 * the old content did not already hold, redaction placeholders it adds, and conflict markers.
 */
export function contentRedFlags(
  files: readonly WrittenContent[],
  secrets: readonly string[] = [],
): RedFlag[] {
  const flags: RedFlag[] = [];
  // Latin-1 maps every byte to one character: binary content is scanned byte for byte. A view of
  // the bytes, not a copy; each file's new text decoded once.
  const text = (bytes: Uint8Array) =>
    Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString('latin1');
  const afters = new Map(files.map((f) => [f, text(f.after)]));
  const keys = secrets.filter((s) => s !== '').map((s) => Buffer.from(s).toString('latin1'));
  const found = (content: string) => {
    const hits = new Set<string>();
    for (const re of SECRET_PATTERNS) for (const m of content.matchAll(re)) hits.add(m[0]);
    for (const m of AWS_SECRET_ACCESS_KEY.find(content)) hits.add(content.slice(m.start, m.end));
    for (const key of keys) if (content.includes(key)) hits.add(key);
    return hits;
  };
  const leaking = files.filter((f) => {
    const after = found(afters.get(f) as string);
    // The old content is scanned only when the new one holds something.
    if (after.size === 0) return false;
    const before = f.before === undefined ? new Set<string>() : found(text(f.before));
    return [...after].some((hit) => !before.has(hit));
  });
  if (leaking.length > 0)
    flags.push({
      rule: 'secret',
      message: `The candidate adds what looks like a credential to ${leaking
        .map((f) => show(f.path))
        .slice(0, 5)
        .join(', ')}.`,
    });
  const placeholders = (content: string) => content.split(REDACTED).length - 1;
  const copied = files.filter((f) => {
    const after = placeholders(afters.get(f) as string);
    return after > 0 && after > (f.before === undefined ? 0 : placeholders(text(f.before)));
  });
  if (copied.length > 0)
    flags.push({
      rule: 'redacted-text',
      message: `The candidate writes text MAKER redacted from what it was shown (${REDACTED}…]) into ${copied
        .map((f) => show(f.path))
        .slice(0, 5)
        .join(', ')}: it would replace what was there.`,
    });
  const marked = files.find((f) => /^(<{7}|>{7})( |$)/m.test(afters.get(f) as string));
  if (marked !== undefined)
    flags.push({
      rule: 'conflict-markers',
      message: `The candidate leaves conflict markers in ${show(marked.path)}.`,
    });
  return flags;
}

function matches(path: string, globs: readonly string[] | undefined): boolean {
  return globs !== undefined && globs.length > 0 && inScope(path, globs);
}
