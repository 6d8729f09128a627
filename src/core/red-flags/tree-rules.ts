import {
  ancestors,
  isInstallFile,
  isMakerFile,
  type CandidatePolicy,
  type TreeChange,
} from '../candidate-policy.js';
import { LIMITS } from '../limits.js';
import { inScope, normalizeRepoPath, showPath } from '../paths.js';
import type { RedFlag } from '../voting/types.js';
import { pathsFlag, type FlagRule } from './rule.js';

/**
 * The changes a candidate's tree makes, as git reports them between the base and that tree (never
 * a diff's headers, which a hostile or confused patch can misstate). `safe` are the changes whose
 * path is canonical and safe, `written` those of them that are not deletions; `baseSymlinks` the
 * base tree's symlinks among the changed paths' ancestors.
 */
export interface TreeInput {
  readonly changes: readonly TreeChange[];
  readonly safe: readonly TreeChange[];
  readonly written: readonly TreeChange[];
  readonly policy: CandidatePolicy;
  readonly baseSymlinks: ReadonlySet<string>;
}

/** The tree input of `changes`: which of them are safe, and which of those write. */
export function treeInput(
  changes: readonly TreeChange[],
  policy: CandidatePolicy,
  baseSymlinks: ReadonlySet<string> = new Set(),
): TreeInput {
  const safe = changes.filter((c) => {
    const normal = normalizeRepoPath(c.path);
    return normal.ok && normal.path === c.path;
  });
  const written = safe.filter((c) => c.status !== 'deleted');
  return { changes, safe, written, policy, baseSymlinks };
}

/** A tree rule that names the offending paths in one flag. */
function pathsRule(
  id: string,
  description: string,
  why: (input: TreeInput) => string,
  offending: (input: TreeInput) => readonly string[],
): FlagRule<TreeInput> {
  return {
    id,
    scope: 'tree',
    description,
    check: (input) => pathsFlag(id, offending(input), why(input)),
  };
}

const matches = (path: string, globs: readonly string[] | undefined) =>
  globs !== undefined && globs.length > 0 && inScope(path, globs);

/** The flag of a candidate that touches `files` files, over the limit. */
export const tooManyFilesFlag = (files: number): RedFlag => ({
  rule: 'too-many-files',
  message: `The candidate touches ${files} files, over the limit of ${LIMITS.candidateFiles} a candidate may write or delete.`,
});

/** The flag of a path a candidate may not write (`reason`: why, from `normalizeRepoPath`). */
export const unsafePathFlag = (path: string, reason: string): RedFlag => ({
  rule: 'unsafe-path',
  message: `The candidate writes ${showPath(path)}: ${reason}.`,
});

export const EMPTY_PATCH: RedFlag = {
  rule: 'empty-patch',
  message: 'The candidate changes nothing.',
};

/** The tree rules, in the order their flags are listed. */
export const TREE_RULES: readonly FlagRule<TreeInput>[] = [
  {
    id: 'empty-patch',
    scope: 'tree',
    description: 'The candidate changes nothing (an empty patch or a tree equal to its base).',
    check: ({ changes }) => (changes.length === 0 ? [EMPTY_PATCH] : []),
  },
  {
    id: 'unsafe-path',
    scope: 'tree',
    description: 'A path outside the repository, into .git/, or not in canonical form.',
    check: ({ changes, safe }) =>
      changes
        .filter((c) => !safe.includes(c))
        .map((c) => {
          const normal = normalizeRepoPath(c.path);
          return unsafePathFlag(
            c.path,
            normal.ok ? 'a path that is not in canonical form' : normal.reason,
          );
        }),
  },
  pathsRule(
    'maker-file',
    "A write to MAKER's own state files (landing would overwrite them).",
    () => "writes MAKER's own state files",
    ({ safe }) => safe.filter((c) => isMakerFile(c.path)).map((c) => c.path),
  ),
  {
    id: 'submodule',
    scope: 'tree',
    description: 'A submodule (gitlink) added, or submodule configuration (.gitmodules) written.',
    check: ({ safe, written }) => [
      ...pathsFlag(
        'submodule',
        written.filter((c) => c.newMode === '160000').map((c) => c.path),
        'adds a submodule (gitlink)',
      ),
      ...pathsFlag(
        'submodule',
        safe
          .filter((c) => c.path === '.gitmodules' || c.path.endsWith('/.gitmodules'))
          .map((c) => c.path),
        'writes submodule configuration',
      ),
    ],
  },
  pathsRule(
    'symlink',
    "A symbolic link added where the run's symlink allowance does not allow it.",
    () => 'adds a symbolic link (allow it with the run’s symlink allowance)',
    ({ written, policy }) =>
      written
        .filter((c) => c.newMode === '120000' && !matches(c.path, policy.allow?.symlinks))
        .map((c) => c.path),
  ),
  pathsRule(
    'executable',
    "A file made executable where the run's executable allowance does not allow it.",
    () =>
      'makes a file executable that the run does not allow (allow it with the run’s executable allowance)',
    ({ written, policy }) =>
      written
        .filter(
          (c) =>
            c.newMode === '100755' &&
            c.oldMode !== '100755' &&
            !matches(c.path, policy.allow?.executables),
        )
        .map((c) => c.path),
  ),
  pathsRule(
    'through-symlink',
    'A write through a symbolic link the base tree has (it could land outside the repository).',
    () => 'writes through a symbolic link the repository has',
    ({ safe, baseSymlinks }) =>
      safe.filter((c) => ancestors(c.path).some((a) => baseSymlinks.has(a))).map((c) => c.path),
  ),
  pathsRule(
    'ci-workflow',
    "A CI workflow written (it runs with the repository's secrets), unless the run allows it.",
    () =>
      'writes CI workflows, which run with the repository’s secrets (allow them for the run if the task needs it)',
    ({ safe, policy }) =>
      policy.allow?.workflows === true
        ? []
        : safe.filter((c) => c.path.startsWith('.github/workflows/')).map((c) => c.path),
  ),
  pathsRule(
    'install-files',
    'Package-manager settings or node_modules/ written (they steer the next install), unless allowed.',
    () =>
      'changes files that steer package installs (package-manager settings, node_modules/), which the person’s own next install would obey (allow them for the run if the task needs it)',
    ({ safe, policy }) =>
      policy.allow?.installFiles === true
        ? []
        : safe.filter((c) => isInstallFile(c.path)).map((c) => c.path),
  ),
  {
    id: 'too-many-files',
    scope: 'tree',
    description: 'More files written or deleted than a minimal subtask may touch.',
    check: ({ changes }) =>
      changes.length > LIMITS.candidateFiles ? [tooManyFilesFlag(changes.length)] : [],
  },
  pathsRule(
    'oversized-file',
    'A file written over the largest size a candidate may write.',
    ({ policy }) => `writes files over ${policy.maxFileBytes} bytes`,
    ({ written, policy }) =>
      written
        .filter((c) => c.newSize !== undefined && c.newSize > policy.maxFileBytes)
        .map((c) => `${c.path} (${c.newSize} bytes)`),
  ),
  pathsRule(
    'out-of-scope',
    'A path outside the files the subtask declared (renames and deletions included).',
    ({ policy }) => `touches paths outside the subtask's files (${policy.scope.join(', ')})`,
    ({ safe, policy }) =>
      policy.scope.length === 0
        ? []
        : safe.filter((c) => !inScope(c.path, policy.scope)).map((c) => c.path),
  ),
];
