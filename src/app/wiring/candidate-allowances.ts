import { UsageError } from '../../core/errors.js';
import { normalizeRepoPath } from '../../core/paths.js';
import type { RunConfig } from '../../core/tree/schema.js';

/** Globs per allowance, as the state schema bounds them. */
const MAX_GLOBS = 50;
/** Largest `--max-file-kb` / `maxFileKb` (100 MB). */
export const MAX_FILE_KB = 100_000;

/** What a person allows candidates beyond the defaults, as a surface receives it. */
export interface AllowanceChoices {
  /** Globs of paths a candidate may make executable. */
  readonly executables?: readonly string[] | undefined;
  /** Globs of paths a candidate may make symbolic links. */
  readonly symlinks?: readonly string[] | undefined;
  /** Candidates may write CI workflows (`.github/workflows/`). */
  readonly workflows?: boolean | undefined;
  /** Candidates may write files that steer package installs (`.npmrc`, `pip.conf`, `node_modules/`…). */
  readonly installFiles?: boolean | undefined;
  /** Largest file a candidate may write, in KiB (default 1,000,000 bytes). */
  readonly maxFileKb?: number | undefined;
}

/**
 * The run configuration's `allow` and `maxFileBytes` for the choices, only for what was chosen.
 * Every bad glob (absolute, climbing out, inside `.git`, empty) is named in one {@link UsageError},
 * before anything is created. `names` spells the options as the surface does.
 */
export function allowanceConfig(
  choices: AllowanceChoices,
  names: { executables: string; symlinks: string; maxFileKb: string },
): { allow?: Partial<RunConfig['allow']>; maxFileBytes?: number } {
  const problems: string[] = [];
  const globs = (list: readonly string[] | undefined, name: string): string[] | undefined => {
    if (list === undefined || list.length === 0) return undefined;
    if (list.length > MAX_GLOBS) problems.push(`${name}: at most ${MAX_GLOBS} globs.`);
    for (const glob of list) {
      const normal = normalizeRepoPath(glob.trim());
      if (!normal.ok) problems.push(`${name} ${JSON.stringify(glob)}: ${normal.reason}.`);
    }
    return list.map((g) => g.trim());
  };
  const executables = globs(choices.executables, names.executables);
  const symlinks = globs(choices.symlinks, names.symlinks);
  const kb = choices.maxFileKb;
  if (kb !== undefined && !(Number.isInteger(kb) && kb >= 1 && kb <= MAX_FILE_KB))
    problems.push(
      `${names.maxFileKb} must be a whole number from 1 to ${MAX_FILE_KB} (got ${kb}).`,
    );
  if (problems.length > 0) throw new UsageError(problems.join('\n'));
  const allow = {
    ...(executables === undefined ? {} : { executables }),
    ...(symlinks === undefined ? {} : { symlinks }),
    ...(choices.workflows === true ? { workflows: true } : {}),
    ...(choices.installFiles === true ? { installFiles: true } : {}),
  };
  return {
    ...(Object.keys(allow).length === 0 ? {} : { allow }),
    ...(kb === undefined ? {} : { maxFileBytes: kb * 1024 }),
  };
}
