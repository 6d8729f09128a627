import { spawn, type ChildProcess } from 'node:child_process';
import { closeSync, openSync } from 'node:fs';
import { readdir, readFile } from 'node:fs/promises';
import type { Writable } from 'node:stream';
import type { CheckSandbox } from './bubblewrap.js';
import { keyringFilter, SECCOMP_FD } from './seccomp.js';
import type { SandboxSpec } from './view.js';

/** `O_CLOEXEC` as `/proc/<pid>/fdinfo/<fd>` shows it in its octal `flags`. */
const CLOSE_ON_EXEC = 0o2000000;

/**
 * The descriptors above stdio that this process holds open across `exec`, so that every program
 * it starts inherits them: none of its own (Node opens every file close-on-exec), only what
 * whoever started MAKER left open (a shell's, a terminal's, a harness's pipe). bubblewrap passes
 * every descriptor it is given on to the command, so a directory held this way would let a check
 * read and write outside its view (`/proc/self/fd/N/…`). Read once per process: such descriptors
 * are only ever inherited, never made later. Empty where `/proc` cannot be read.
 */
export function inheritedDescriptors(): Promise<number[]> {
  inherited ??= readInherited();
  return inherited;
}

let inherited: Promise<number[]> | undefined;

async function readInherited(): Promise<number[]> {
  const found: number[] = [];
  for (const name of await readdir('/proc/self/fd').catch(() => [])) {
    const fd = Number(name);
    if (!Number.isInteger(fd) || fd <= 2) continue;
    const info = await readFile(`/proc/self/fdinfo/${fd}`, 'utf8').catch(() => '');
    const flags = /^flags:\s*([0-7]+)$/m.exec(info)?.[1];
    if (flags !== undefined && (parseInt(flags, 8) & CLOSE_ON_EXEC) === 0) found.push(fd);
  }
  return found.sort((a, b) => a - b);
}

/** Where a sandbox that can reports its first process's pid. */
export const INFO_FD = 3;

/** How a sandbox is called: its argv, and what it is given beyond stdio. */
export interface SandboxCall {
  readonly argv: string[];
  /** It reports its first process's pid on {@link INFO_FD}. */
  readonly reportsPid: boolean;
  /** Written to these descriptors (then closed) as it starts: the seccomp filter. */
  readonly feeds: readonly { readonly fd: number; readonly data: Buffer }[];
}

/** `spec` in `sandbox`, with every descriptor the sandbox can take: its report, its filter. */
export function sandboxCall(sandbox: CheckSandbox, spec: SandboxSpec, root: string): SandboxCall {
  const filter = sandbox.seccomp ? keyringFilter() : undefined;
  const fds = {
    info: sandbox.reportsChildPid ? INFO_FD : undefined,
    seccomp: filter === undefined ? undefined : SECCOMP_FD,
  };
  return {
    argv: sandbox.argv(spec, root, fds),
    reportsPid: sandbox.reportsChildPid,
    feeds: filter === undefined ? [] : [{ fd: SECCOMP_FD, data: filter }],
  };
}

/**
 * Starts `argv` (a sandbox's, maybe wrapped) as `call` says: no input, output and error piped, the
 * report piped, each feed written, and every descriptor of `inherited` replaced by `/dev/null`.
 */
export function spawnSandbox(
  argv: readonly string[],
  call: Pick<SandboxCall, 'reportsPid' | 'feeds'>,
  inherited: readonly number[],
  env: NodeJS.ProcessEnv,
): ChildProcess {
  const [file, ...args] = argv;
  const piped = [...(call.reportsPid ? [INFO_FD] : []), ...call.feeds.map((f) => f.fd)];
  const devNull = openSync('/dev/null', 'r');
  let child: ChildProcess;
  try {
    child = spawn(file as string, args, {
      stdio: sandboxStdio(piped, inherited, devNull),
      env,
    });
  } finally {
    closeSync(devNull);
  }
  for (const { fd, data } of call.feeds) {
    const stream = child.stdio[fd] as Writable | null | undefined;
    // A sandbox that failed to start closes it unread.
    stream?.on('error', () => undefined);
    stream?.end(data);
  }
  return child;
}

/**
 * The `stdio` of a sandbox's spawn: no input, output and error piped, each descriptor of `piped`
 * piped (its report, its filter), and every descriptor of `inherited` taken over by `devNull`
 * (read-only `/dev/null`), so what this process inherited never reaches the sandbox.
 */
export function sandboxStdio(
  piped: readonly number[],
  inherited: readonly number[],
  devNull: number,
): ('ignore' | 'pipe' | number)[] {
  const stdio: ('ignore' | 'pipe' | number)[] = ['ignore', 'pipe', 'pipe'];
  for (const fd of piped) {
    while (stdio.length <= fd) stdio.push('ignore');
    stdio[fd] = 'pipe';
  }
  for (const fd of inherited) {
    while (stdio.length <= fd) stdio.push('ignore');
    if (stdio[fd] === 'ignore') stdio[fd] = devNull;
  }
  return stdio;
}
