import { execFile } from 'node:child_process';
import { accessSync, constants, statSync } from 'node:fs';
import { delimiter, isAbsolute, join } from 'node:path';
import { MakerError } from '../../core/errors.js';

let resolved: string | undefined;

/**
 * The git program MAKER runs: `git` found on `PATH` once, as an absolute path, and used for every
 * git process after that (so no later change of `PATH`, and no shell set-up, picks another one).
 * Throws `git-missing` when there is none.
 */
export function gitBinary(): string {
  resolved ??= findProgram('git', process.env['PATH'] ?? '');
  if (resolved === undefined)
    throw new MakerError(
      'git-missing',
      'git is not on PATH. MAKER needs git (2.38 or later): install it (Debian/Ubuntu: apt-get install git) and try again.',
    );
  return resolved;
}

/** The first executable file `name` in the directories of `path` (a `PATH` value), or undefined. */
export function findProgram(name: string, path: string): string | undefined {
  for (const dir of path.split(delimiter)) {
    if (dir === '' || !isAbsolute(dir)) continue; // a relative entry would depend on the cwd
    const file = join(dir, name);
    try {
      if (!statSync(file).isFile()) continue;
      accessSync(file, constants.X_OK);
      return file;
    } catch {
      // not here
    }
  }
  return undefined;
}

/** The git program and what it says its version is (`git --version`), for `maker --version --verbose`. */
export async function describeGit(): Promise<string> {
  let path: string;
  try {
    path = gitBinary();
  } catch (error) {
    return (error as Error).message;
  }
  const version = await new Promise<string>((resolve) => {
    execFile(path, ['--version'], { env: { LC_ALL: 'C' }, timeout: 10_000 }, (error, stdout) =>
      resolve(error === null ? stdout.trim() : `(it would not run: ${error.message})`),
    );
  });
  return `${path} (${version})`;
}
