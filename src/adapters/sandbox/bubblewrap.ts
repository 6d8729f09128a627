import type { Mount, SandboxSpec } from './view.js';

/**
 * A confinement for commands MAKER did not write (a subtask's check, a dependency install, both
 * proposed by a model): it renders a {@link SandboxSpec} — an allow-listed view, an environment,
 * a command — as the argv of one program, found on the PATH when the sandbox was found.
 */
export interface CheckSandbox {
  readonly name: SandboxName;
  /**
   * The argv that runs `spec` confined: no network (a new network namespace with only its own
   * loopback), no capabilities, its own user, process, IPC and UTS namespaces, a new session, no
   * further user namespaces, killed with MAKER. `root` is a fresh empty directory on the host that
   * the sandbox may use to build its view (removed by the caller after the run). `fds` names the
   * descriptors the caller gives it beyond stdio: `info`, where a sandbox that can (bubblewrap)
   * writes `"child-pid": N` once its first process exists (see
   * {@link CheckSandbox.reportsChildPid}); `seccomp`, where it reads the seccomp filter it loads
   * into the command (see {@link CheckSandbox.seccomp}).
   */
  argv(spec: SandboxSpec, root: string, fds?: SandboxFds): string[];
  /**
   * Whether `argv` with an `infoFd` reports the pid of the sandbox's first process (the init of
   * its process namespace, which takes everything in it along when it is killed). It is closed in
   * that process before anything of the spec runs, so the command cannot write to it.
   */
  readonly reportsChildPid: boolean;
  /** Whether `argv` with a `seccomp` descriptor loads the filter read from it (`seccomp.ts`). */
  readonly seccomp: boolean;
}

/** Descriptors given to a sandbox beyond stdio (see {@link CheckSandbox.argv}). */
export interface SandboxFds {
  readonly info?: number | undefined;
  readonly seccomp?: number | undefined;
}

export type SandboxName = 'bubblewrap' | 'unshare';

/** Renders the mounts as bubblewrap arguments, in order. */
function mountArgs(mounts: readonly Mount[]): string[] {
  return mounts.flatMap((m): string[] => {
    switch (m.kind) {
      case 'ro-bind':
        return ['--ro-bind', m.source, m.target];
      case 'bind':
        return ['--bind', m.source, m.target];
      case 'tmpfs':
        return ['--size', String(m.sizeBytes), '--tmpfs', m.target];
      case 'symlink':
        return ['--symlink', m.link, m.path];
      case 'hide':
        return m.directory
          ? ['--perms', '0555', '--size', '4096', '--tmpfs', m.path, '--remount-ro', m.path]
          : ['--ro-bind', '/dev/null', m.path];
      case 'dev':
        return ['--dev', '/dev'];
      case 'proc':
        return ['--proc', '/proc'];
    }
  });
}

/**
 * bubblewrap (Debian's `bubblewrap`) at `file`: the view is built on an empty root made read-only
 * at the end, so only what the spec names exists inside. `disableUserns` asks bubblewrap (0.8 and
 * later) to refuse the sandbox any user namespace of its own.
 */
export function bubblewrapAt(file: string, disableUserns = true): CheckSandbox {
  return {
    name: 'bubblewrap',
    reportsChildPid: true,
    seccomp: true,
    argv: (spec, _root, fds = {}) => [
      file,
      ...(fds.info === undefined ? [] : ['--info-fd', String(fds.info)]),
      ...(fds.seccomp === undefined ? [] : ['--seccomp', String(fds.seccomp)]),
      '--unshare-user',
      ...(disableUserns ? ['--disable-userns'] : []),
      '--unshare-pid',
      '--unshare-net',
      '--unshare-ipc',
      '--unshare-uts',
      '--unshare-cgroup-try',
      '--die-with-parent',
      '--new-session',
      '--cap-drop',
      'ALL',
      '--clearenv',
      ...Object.entries(spec.env).flatMap(([k, v]) => ['--setenv', k, v]),
      ...mountArgs(spec.mounts),
      '--remount-ro',
      '/',
      '--chdir',
      spec.cwd,
      '--',
      ...spec.argv,
    ],
  };
}
