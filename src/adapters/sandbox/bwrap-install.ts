import { realpath } from 'node:fs/promises';
import type { Hidden, ReadOnlyBind } from './bwrap.js';

/**
 * The bubblewrap argv for a dependency install: like a check's confinement (the file system
 * read-only, a private `/tmp`, `hidden` out of sight, no capabilities, its own process, IPC and UTS
 * namespaces, a new session, killed with MAKER) but **sharing the network**, which only the install
 * may use, with `dir` (the install's cache directory) its only writable place and `cwd` its
 * working directory. `readOnly` shows paths again under hidden ones (see {@link resolverPlaces}).
 */
export function installArgv(
  command: string,
  dir: string,
  cwd: string,
  hidden: readonly Hidden[],
  readOnly: readonly ReadOnlyBind[] = [],
): string[] {
  return [
    'bwrap',
    '--ro-bind',
    '/',
    '/',
    '--dev',
    '/dev',
    '--proc',
    '/proc',
    '--tmpfs',
    '/tmp',
    ...hidden.flatMap((h) =>
      h.directory ? ['--tmpfs', h.path] : ['--ro-bind', '/dev/null', h.path],
    ),
    ...readOnly.flatMap((b) => ['--ro-bind', b.source, b.target]),
    '--bind',
    dir,
    dir,
    '--share-net',
    '--unshare-pid',
    '--unshare-ipc',
    '--unshare-uts',
    '--die-with-parent',
    '--new-session',
    '--cap-drop',
    'ALL',
    '--chdir',
    cwd,
    'sh',
    '-c',
    command,
  ];
}

/**
 * The name-resolution files that live under `/run` (a systemd-resolved `/etc/resolv.conf` links
 * there): hiding `/run` (sockets of D-Bus, docker, databases) must not take DNS from the install.
 */
export async function resolverPlaces(): Promise<ReadOnlyBind[]> {
  const found = await Promise.all(
    ['/etc/resolv.conf', '/etc/hosts', '/etc/nsswitch.conf'].map((p) =>
      realpath(p).catch(() => undefined),
    ),
  );
  return found
    .filter((p): p is string => p !== undefined && p.startsWith('/run/'))
    .map((p) => ({ source: p, target: p }));
}
