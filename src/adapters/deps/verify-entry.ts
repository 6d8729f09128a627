import { lstat, readdir, readFile, readlink } from 'node:fs/promises';
import { basename, dirname, join, posix, relative } from 'node:path';
import { DEPS } from '../sandbox/view.js';

/**
 * What an install wrote is served to every later check with the same lock files, so it is checked
 * once, before it is ever served: an entry holding any of these is refused (and removed), naming
 * what it found. The check sandbox shows only an allow-listed view, so a link inside the entry is
 * harmless there; it is refused anyway when it leads out of the entry and out of that view (it can
 * only be a trap, for a program on the host that follows it), and whatever would run by itself at
 * an interpreter's start is refused outright.
 */

/** Interpreter start-up hooks: Python imports these from any directory on its path. */
const STARTUP_FILES = new Set(['sitecustomize.py', 'usercustomize.py']);

/** `.pth` files that run code, known by their whole text (virtualenv's and setuptools' own). */
const KNOWN_PTH = [
  /^import _virtualenv\s*$/,
  /^import os; var = 'SETUPTOOLS_USE_DISTUTILS'; enabled = os\.environ\.get\(var, '(local|stdlib)'\) == 'local'; enabled and __import__\('_distutils_hack'\)\.add_shim\(\); ?\s*$/,
];

/** How many entries are read at most (a large `node_modules` holds tens of thousands). */
const MAX_ENTRIES = 500_000;

/**
 * The problems of the entry at `dir` (shown at {@link DEPS} inside sandboxes), one line each;
 * empty when it may be served. `viewRoots` are the places a sandbox shows besides the entry (the
 * system, the toolchains): a link may lead there.
 */
export async function entryProblems(dir: string, viewRoots: readonly string[]): Promise<string[]> {
  const problems: string[] = [];
  let seen = 0;
  const inView = (target: string) =>
    target === DEPS ||
    target.startsWith(`${DEPS}/`) ||
    viewRoots.some((r) => target === r || target.startsWith(`${r}/`));
  const walk = async (path: string): Promise<void> => {
    for (const name of await readdir(path).catch(() => [])) {
      if (++seen > MAX_ENTRIES || problems.length >= 20) return;
      const file = join(path, name);
      const inside = posix.join(DEPS, relative(dir, file));
      const stats = await lstat(file);
      if (stats.isSymbolicLink()) {
        const link = await readlink(file);
        const target = posix.resolve(dirname(inside), link);
        if (!inView(target)) problems.push(`${inside} links to ${link}, outside the install`);
      } else if (stats.isDirectory()) await walk(file);
      else if (!stats.isFile()) problems.push(`${inside} is not a file nor a folder`);
      else if (STARTUP_FILES.has(name))
        problems.push(`${inside} would run at every start of Python (${name})`);
      else if (name.endsWith('.pth') && basename(path) === 'site-packages') {
        const text = await readFile(file, 'utf8');
        const runs = text.split('\n').some((l) => /^import[\s\t]/.test(l));
        if (runs && !KNOWN_PTH.some((k) => k.test(text)))
          problems.push(`${inside} would run code at every start of Python (an "import" line)`);
      }
    }
  };
  await walk(dir);
  if (seen > MAX_ENTRIES) problems.push(`the install wrote more than ${MAX_ENTRIES} entries`);
  return problems;
}

/**
 * The names `project` holds besides the dependency files, each to be shown at the same place in
 * a check's checkout: only real directories and files are (a link would be followed on the host
 * when mounted). Those that are not are returned as problems.
 */
export async function addedNames(
  project: string,
  inputs: ReadonlySet<string>,
): Promise<{ names: string[]; problems: string[] }> {
  const names: string[] = [];
  const problems: string[] = [];
  for (const name of await readdir(project)) {
    if (inputs.has(name)) continue;
    const stats = await lstat(join(project, name));
    if (stats.isDirectory() || stats.isFile()) names.push(name);
    else problems.push(`${DEPS}/project/${name} is not a folder nor a file, and is not shown`);
  }
  return { names, problems };
}
