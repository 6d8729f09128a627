import { execFile } from 'node:child_process';
import { realpath } from 'node:fs/promises';
import { basename, delimiter, dirname, join, resolve } from 'node:path';
import { promisify } from 'node:util';
import type { Mount } from './view.js';
import { ownNodeAt, which } from './which.js';

const execFileAsync = promisify(execFile);

/** The toolchains a sandboxed command gets: what to show read-only, and the PATH entries they add. */
export interface Toolchains {
  readonly mounts: readonly Mount[];
  /** Directories of the resolved programs, in the order the host's PATH finds them. */
  readonly pathDirs: readonly string[];
  /** Each program found: its name and the real file it runs. */
  readonly found: readonly { readonly name: string; readonly file: string }[];
}

/** Interpreters asked where they live (a version manager's shim is not the interpreter). */
const INTERPRETERS: Record<string, string[]> = {
  python3: ['-c', 'import sys; print(sys.executable); print(sys.base_prefix)'],
  python: ['-c', 'import sys; print(sys.executable); print(sys.base_prefix)'],
  node: ['-p', 'process.execPath + "\\n" + require("path").resolve(process.execPath, "../..")'],
};

/** Programs a check or an install may run, looked up on the host's PATH. */
const PROGRAMS = [
  'node',
  'npm',
  'npx',
  'corepack',
  'pnpm',
  'yarn',
  'python3',
  'python',
  'pip',
  'pip3',
  'uv',
  'go',
  'deno',
  'bun',
];

/** The parts of a toolchain's prefix shown: its programs and libraries, never its data or settings. */
const PREFIX_PARTS = ['bin', 'lib', 'lib64', 'libexec', 'include'];

/** The system's directories, shown to every sandbox anyway. */
const SYSTEM_ROOTS = ['/usr', '/bin', '/sbin', '/lib', '/lib32', '/lib64', '/libx32', '/etc'];

/** Directories under a home that hold credentials or a person's data: never shown, whatever lives there. */
const PRIVATE_UNDER_HOME = [
  '.ssh',
  '.gnupg',
  '.aws',
  '.azure',
  '.config',
  '.docker',
  '.kube',
  '.password-store',
  '.local/share',
  '.gemini',
  '.npmrc',
  '.pypirc',
  '.netrc',
  '.git-credentials',
  '.cargo/credentials',
  '.cargo/credentials.toml',
];

const inside = (path: string, root: string) => path === root || path.startsWith(`${root}/`);

/**
 * The toolchains on `path` (MAKER's own Node.js always among them), each shown read-only by its
 * real location: an interpreter by the `bin`, `lib`, `lib64`, `libexec` and `include` of its
 * prefix (`~/.nvm/versions/node/v20.19.0`, `~/.pyenv/versions/3.11.7`), another program by the
 * same parts of the prefix its real file is in (`<prefix>/bin/x`), or by its own file. Nothing is
 * shown that is the home directory, one of its ancestors, or a place under it that holds
 * credentials; the system's directories are shown anyway. A version manager's shims are not
 * shown: inside, the PATH leads to the real programs.
 */
export async function findToolchains(path: string, home: string): Promise<Toolchains> {
  const dirs = path.split(delimiter).filter((d) => d.startsWith('/'));
  const shown = new Map<string, string>();
  const pathDirs: string[] = [];
  const found: { name: string; file: string }[] = [];
  const show = (source: string) => {
    if (!SYSTEM_ROOTS.some((r) => inside(source, r))) shown.set(source, source);
  };
  const showPrefix = async (prefix: string, file: string) => {
    if (refused(prefix, home)) {
      if (!refused(file, home)) show(file);
      return;
    }
    for (const part of PREFIX_PARTS) {
      const real = await realpath(join(prefix, part)).catch(() => undefined);
      if (real === undefined || refused(real, home)) continue;
      if (!SYSTEM_ROOTS.some((r) => inside(real, r))) shown.set(join(prefix, part), real); // shown where the prefix expects it, from where it is
    }
  };
  // Asked all at once (a version manager's shim takes a second to answer), then taken in order.
  const programs = await Promise.all(
    [process.execPath, ...PROGRAMS].map(async (program) => {
      const onPath = program.startsWith('/') ? program : await which(program, dirs);
      const name = basename(program);
      return { program, name, located: onPath && (await locate(name, onPath, path)) };
    }),
  );
  for (const { program, name, located } of programs) {
    if (located === undefined || located === '') continue;
    found.push({ name, file: located.file });
    await showPrefix(located.prefix, located.file);
    const dir = dirname(located.file);
    // The system's directories end the PATH anyway: listed first, they would shadow a person's own
    // interpreter (`/usr/bin/python3` before `~/.pyenv/versions/3.11.7/bin/python3`).
    const system = SYSTEM_ROOTS.some((r) => inside(dir, r));
    if (!system && !refused(dir, home) && !pathDirs.includes(dir) && program !== process.execPath)
      pathDirs.push(dir);
  }
  return {
    mounts: [...shown].map(([target, source]) => ({ kind: 'ro-bind', source, target })),
    pathDirs,
    found,
  };
}

/** The real file a program runs and its prefix, or undefined for a shim or a program that fails. */
async function locate(
  name: string,
  onPath: string,
  path: string,
): Promise<{ file: string; prefix: string } | undefined> {
  const args = INTERPRETERS[name];
  // This process's own Node.js (as MAKER's runtime, or as the PATH's `node`): what asking it would
  // answer is known here, without starting it.
  const self = name === 'node' ? await ownNode(onPath) : undefined;
  if (self !== undefined) return self;
  if (args !== undefined) {
    // Asked with the host's PATH (the person's own tool, not a model's): where it really is.
    const answer = await execFileAsync(onPath, args, {
      timeout: 10_000,
      env: { PATH: path },
    }).catch(() => undefined);
    const [file, prefix] = (answer?.stdout ?? '').trim().split('\n');
    if (file === undefined || prefix === undefined || !file.startsWith('/')) return undefined;
    const real = await realpath(file).catch(() => undefined);
    return real === undefined ? undefined : { file: real, prefix: await realpath(prefix) };
  }
  const real = await realpath(onPath).catch(() => undefined);
  if (real === undefined || basename(dirname(onPath)) === 'shims') return undefined;
  // A script inside a package (`lib/node_modules/pnpm/bin/pnpm.cjs`): the prefix holding the
  // `lib/node_modules` it is in, and the link on the PATH in that prefix's `bin` (the script's own
  // directory would put `pnpm.cjs`, not `pnpm`, on the PATH inside).
  const modules = real.lastIndexOf('/lib/node_modules/');
  if (modules > 0) return { file: onPath, prefix: real.slice(0, modules) };
  const bin = dirname(real);
  if (basename(bin) === 'bin') return { file: real, prefix: dirname(bin) };
  return { file: real, prefix: bin };
}

/**
 * Where this process's Node.js is and its prefix, as `node -p` run at `onPath` would say, when
 * `onPath` is this very executable (its real file is `process.execPath`'s); else undefined.
 */
async function ownNode(onPath: string): Promise<{ file: string; prefix: string } | undefined> {
  const real = await ownNodeAt(onPath);
  return real === undefined
    ? undefined
    : { file: real, prefix: await realpath(resolve(real, '../..')) };
}

/** Whether `path` must not be shown: the root, the home, an ancestor of it, or a private place under it. */
function refused(path: string, home: string): boolean {
  if (path === '/' || inside(home, path)) return true;
  return PRIVATE_UNDER_HOME.some((p) => inside(path, join(home, p)));
}
