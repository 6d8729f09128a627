import { readdir, readFile } from 'node:fs/promises';

/** `O_CLOEXEC` as `/proc/<pid>/fdinfo/<fd>` shows it in its octal `flags`. */
const CLOSE_ON_EXEC = 0o2000000;

/**
 * The descriptors above stdio that this process holds open across `exec`, so that every program
 * it starts inherits them: none of its own (Node opens every file close-on-exec), only what
 * whoever started MAKER left open (a shell's, a terminal's, a harness's pipe). bubblewrap passes
 * every descriptor it is given on to the command, so a directory held this way would let a check
 * read and write outside its view (`/proc/self/fd/N/…`). Empty where `/proc` cannot be read.
 */
export async function inheritedDescriptors(): Promise<number[]> {
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

/**
 * The `stdio` of a sandbox's spawn: no input, output and error piped, with `infoFd` (3) piped
 * where the sandbox reports on it, and every descriptor of `inherited` taken over by `devNull`
 * (read-only `/dev/null`), so what this process inherited never reaches the sandbox.
 */
export function sandboxStdio(
  reportsPid: boolean,
  inherited: readonly number[],
  devNull: number,
): ('ignore' | 'pipe' | number)[] {
  const stdio: ('ignore' | 'pipe' | number)[] = ['ignore', 'pipe', 'pipe'];
  if (reportsPid) stdio.push('pipe');
  for (const fd of inherited) {
    while (stdio.length <= fd) stdio.push('ignore');
    if (stdio[fd] === 'ignore') stdio[fd] = devNull;
  }
  return stdio;
}
