import { lstatSync, readdirSync, type Dirent, type Stats } from 'node:fs';
import { lstat, readlink, realpath } from 'node:fs/promises';
import { join } from 'node:path';
import type { Mount } from './view.js';
import { findToolchains, type Toolchains } from './toolchains.js';

/**
 * The part of the host every sandboxed command sees, read-only: the system's programs and
 * libraries (`/usr`, `/bin`, `/lib*`, `/sbin`), `/etc` without what an unprivileged user could not
 * read nor anything credential-shaped, the toolchains on the PATH (see {@link findToolchains}), a
 * minimal `/dev` and its own `/proc`. Nothing else of the host exists inside: not the home
 * directory, not `/root`, `/run`, `/var`, `/opt`, `/mnt`, the host's `/tmp`, nor any other mount.
 */
export interface HostView {
  readonly mounts: readonly Mount[];
  /** The PATH inside: the toolchains' own directories, then the system's. */
  readonly path: string;
  readonly toolchains: Toolchains;
}

/** The system's top-level directories shown read-only (or as the links they are). */
const SYSTEM_DIRS = ['usr', 'bin', 'sbin', 'lib', 'lib32', 'lib64', 'libx32'];

const SYSTEM_PATH = '/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin';

/**
 * Entries of `/etc` that hold credentials or settings a check has no business reading, even when
 * world-readable: system-wide environment variables (where keys are often put), package-registry
 * and container-registry logins, netrc, and private keys. (Anything not world-readable — shadow
 * files, host keys, `ssl/private` — is hidden by its mode, whoever runs MAKER.)
 */
const ETC_CREDENTIALS = [
  'environment',
  'npmrc',
  'yarnrc',
  'pip.conf',
  'pypirc',
  'netrc',
  '.netrc',
  'boto.cfg',
  'docker',
  'containers/auth.json',
  'ssh',
  'ssl/private',
  'sudoers',
  'sudoers.d',
  'gitconfig',
  'wpa_supplicant',
  'NetworkManager/system-connections',
];

/** How deep and how much of `/etc` is read to find what to hide (it holds about a thousand entries). */
const ETC_MAX_DEPTH = 8;
const ETC_MAX_ENTRIES = 20_000;

const fixed = new Map<string, Promise<Omit<HostView, 'mounts'> & { system: Mount[] }>>();

/**
 * The host view for a PATH. The system directories and the toolchains are found once per PATH
 * and home in a process; `/etc` is read again each time, so what is hidden in it follows what
 * is there now (a credential file made after the first check is hidden from the next).
 */
export async function hostView(path: string, home: string): Promise<HostView> {
  const key = `${path}\0${home}`;
  let parts = fixed.get(key);
  if (parts === undefined) {
    parts = fixedParts(path, home);
    fixed.set(key, parts);
    parts.catch(() => fixed.delete(key));
  }
  const [{ system, path: searchPath, toolchains }, etc] = await Promise.all([parts, etcMounts()]);
  return {
    mounts: [...system, ...etc, ...toolchains.mounts, { kind: 'dev' }, { kind: 'proc' }],
    path: searchPath,
    toolchains,
  };
}

async function fixedParts(path: string, home: string) {
  const [system, toolchains] = await Promise.all([systemMounts(), findToolchains(path, home)]);
  return { system, path: [...toolchains.pathDirs, SYSTEM_PATH].join(':'), toolchains };
}

/** `/usr` and the top-level system directories: real ones bound read-only, links kept as links. */
async function systemMounts(): Promise<Mount[]> {
  const mounts: Mount[] = [];
  for (const name of SYSTEM_DIRS) {
    const path = `/${name}`;
    const stats = await lstat(path).catch(() => undefined);
    if (stats === undefined) continue;
    if (stats.isSymbolicLink()) {
      const link = await readlink(path);
      // Only a link into the system's own directories (`usr/bin`), never one that leads elsewhere.
      const target = link.startsWith('/') ? link.slice(1) : link;
      if (SYSTEM_DIRS.includes(target.split('/')[0] ?? '') && !target.includes('..'))
        mounts.push({ kind: 'symlink', link, path });
    } else if (stats.isDirectory()) mounts.push({ kind: 'ro-bind', source: path, target: path });
  }
  return mounts;
}

/** Directory entries in the order of their names' UTF-16 code units (as `Array.prototype.sort`). */
const byName = (a: Dirent, b: Dirent): number => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0);

/**
 * `/etc` read-only, then hidden in it: every entry an unprivileged user could not read (not
 * readable by "others", or a directory they cannot enter) and the credential-shaped entries above.
 * A link in `/etc` resolves inside the sandbox's view, where what it points to may not exist.
 */
export async function etcMounts(etc = '/etc'): Promise<Mount[]> {
  const root = await realpath(etc).catch(() => undefined);
  if (root === undefined) return [];
  const hidden = new Map<string, boolean>();
  let seen = 0;
  // Synchronous: about 1,200 entries, read per check, take a few milliseconds this way and ten
  // times that as a round trip through the thread pool each. A link, as the directory listing
  // says (most of `/etc` on Debian: certificates, alternatives), is passed over without a stat.
  const walk = (dir: string, depth: number): void => {
    let entries: Dirent[];
    try {
      entries = readdirSync(dir, { withFileTypes: true });
    } catch {
      return;
    }
    for (const entry of entries.sort(byName)) {
      if (++seen > ETC_MAX_ENTRIES) return;
      if (entry.isSymbolicLink()) continue;
      const path = join(dir, entry.name);
      let stats: Stats;
      try {
        stats = lstatSync(path);
      } catch {
        continue;
      }
      if (stats.isSymbolicLink()) continue;
      const directory = stats.isDirectory();
      const others = stats.mode & 0o007;
      const readable = directory ? (others & 0o005) === 0o005 : (others & 0o004) !== 0;
      if (!readable) hidden.set(path, directory);
      else if (directory && depth < ETC_MAX_DEPTH) walk(path, depth + 1);
    }
  };
  walk(root, 1);
  // Synchronous too: a thread-pool round trip each, one after another, cost more than the walk.
  for (const name of ETC_CREDENTIALS) {
    const path = join(root, name);
    let stats: Stats;
    try {
      stats = lstatSync(path);
    } catch {
      continue;
    }
    if (!stats.isSymbolicLink()) hidden.set(path, stats.isDirectory());
  }
  // A hidden directory hides what is under it: only the outermost ones are mounted over.
  const paths = [...hidden.keys()].sort();
  const outermost = paths.filter((p) => !paths.some((q) => p !== q && p.startsWith(`${q}/`)));
  return [
    { kind: 'ro-bind', source: root, target: '/etc' },
    ...outermost.map((p): Mount => ({
      kind: 'hide',
      path: `/etc${p.slice(root.length)}`,
      directory: hidden.get(p) === true,
    })),
  ];
}
