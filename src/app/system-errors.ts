/**
 * What the machine refused (permissions, a full disk, a read-only file system, too many open
 * files), said as what to do. Nothing is lost by these: the state is written atomically, so the
 * last save stands. `resume` is how the person goes on there (`maker resume`, `maker_resume`).
 */
export function isSystemError(error: unknown): error is NodeJS.ErrnoException {
  return error instanceof Error && typeof (error as NodeJS.ErrnoException).syscall === 'string';
}

const HINTS: Readonly<Record<string, (where: string, resume: string) => string>> = {
  EACCES: (where) =>
    `Permission denied${where}: give your user write access there (or choose another directory).`,
  EPERM: (where) =>
    `The operation was not permitted${where}: check the file's owner and permissions (or choose another directory).`,
  EROFS: (where) => `The file system is read-only${where}: choose a writable directory.`,
  ENOSPC: (where, resume) => `The disk is full${where}: free some space, then ${resume}.`,
  EDQUOT: (where, resume) => `Your disk quota is used up${where}: free some space, then ${resume}.`,
  EMFILE: (where, resume) =>
    `Too many files are open${where}: raise the limit (ulimit -n), then ${resume}.`,
  ENFILE: (where, resume) =>
    `The system has too many files open${where}: close some programs, then ${resume}.`,
};

/** The actionable message for a system error; its own message when no hint applies. */
export function systemErrorMessage(error: NodeJS.ErrnoException, resume: string): string {
  const hint = HINTS[error.code ?? ''];
  if (hint === undefined) return error.message;
  const where = error.path === undefined ? '' : ` (${error.syscall} ${error.path})`;
  return `${hint(where, resume)} Nothing was lost: the state is written atomically, so its last save stands. (${error.code})`;
}
