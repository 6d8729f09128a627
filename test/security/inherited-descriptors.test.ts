import { execFileSync, spawn, type StdioOptions } from 'node:child_process';
import { closeSync, openSync } from 'node:fs';
import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { sandboxStdio } from '../../src/adapters/sandbox/descriptors.js';
import { bareEnv, CLI } from '../helpers/cli.js';
import { useTempDirs } from '../helpers/tmp.js';
import { machineSandbox } from '../helpers/settings.js';

/**
 * What MAKER inherited never reaches a check. A descriptor left open across `exec` by whoever
 * started MAKER (a shell, a terminal, a harness) is inherited by every program MAKER starts, and
 * bubblewrap passes every descriptor on to the command: a directory held this way is a way out of
 * the view (`/proc/self/fd/N/…` reads and writes the host's files behind it).
 */

const tempDir = useTempDirs();

/** A host directory with a secret in it, and a host file a check must not write. */
async function scene() {
  const home = await tempDir();
  await writeFile(join(home, 'key'), 'HOST-SECRET-7f3a\n');
  const note = join(home, 'note');
  await writeFile(note, 'untouched\n');
  const repo = await tempDir();
  const git = (...args: string[]) => execFileSync('git', ['-C', repo, ...args]);
  git('init', '-q', '-b', 'main');
  git('-c', 'user.name=t', '-c', 'user.email=t@t', 'commit', '-q', '--allow-empty', '-m', 'x');
  return { home, note, repo };
}

/** The hostile check: through descriptors 40 (the directory) and 41 (the file), if it has them. */
const HOSTILE =
  'cat /proc/self/fd/40/key; echo pwned-through-40 > /proc/self/fd/40/planted; echo pwned-through-41 >> /proc/self/fd/41; true';

/** Runs `argv` with the directory open (not close-on-exec) at 40 and the file at 41. */
function withDescriptors(
  argv: string[],
  cwd: string,
  home: string,
  note: string,
  env: Record<string, string> = {},
) {
  const dir = openSync(home, 'r');
  const file = openSync(note, 'a');
  const stdio: StdioOptions = ['ignore', 'pipe', 'pipe'];
  while (stdio.length < 40) stdio.push('ignore');
  stdio.push(dir, file);
  try {
    const child = spawn(argv[0] as string, argv.slice(1), { stdio, cwd, env: bareEnv(env) });
    let out = '';
    child.stdout?.setEncoding('utf8').on('data', (c: string) => (out += c));
    child.stderr?.setEncoding('utf8').on('data', (c: string) => (out += c));
    return new Promise<string>((resolve, reject) => {
      child.on('error', reject);
      child.on('close', () => resolve(out));
    });
  } finally {
    closeSync(dir);
    closeSync(file);
  }
}

it('the scene proves something: unconfined, the hostile check reads and writes through them', async () => {
  const { home, note, repo } = await scene();
  const out = await withDescriptors(['sh', '-c', HOSTILE], repo, home, note);
  expect(out).toContain('HOST-SECRET-7f3a');
  expect(await readFile(note, 'utf8')).toContain('pwned-through-41');
  expect(await readFile(join(home, 'planted'), 'utf8')).toContain('pwned-through-40');
});

for (const name of ['bubblewrap', 'unshare'] as const) {
  const sandbox = await machineSandbox(name);
  describe.skipIf(sandbox === undefined)(`a check in ${name}`, () => {
    it('gets none of what MAKER inherited: /dev/null stands in their place', async () => {
      const { home, note, repo } = await scene();
      const out = await withDescriptors(
        [
          process.execPath,
          CLI,
          'sandbox',
          `${HOSTILE}; readlink /proc/self/fd/40 /proc/self/fd/41`,
        ],
        repo,
        home,
        note,
        { MAKER_SANDBOX: name },
      );
      expect(out).not.toContain('HOST-SECRET-7f3a');
      expect(out).toContain('/dev/null\n/dev/null');
      expect(await readFile(note, 'utf8')).toBe('untouched\n');
      await expect(readFile(join(home, 'planted'), 'utf8')).rejects.toThrow(/ENOENT/);
    });
  });
}

describe('sandboxStdio', () => {
  it('pipes output and the report, and puts /dev/null on every inherited descriptor', () => {
    expect(sandboxStdio([3], [], 9)).toEqual(['ignore', 'pipe', 'pipe', 'pipe']);
    expect(sandboxStdio([], [3, 6], 9)).toEqual([
      'ignore',
      'pipe',
      'pipe',
      9,
      'ignore',
      'ignore',
      9,
    ]);
    // The report's and the filter's descriptors are pipes, whatever was inherited there.
    expect(sandboxStdio([3, 4], [4, 5], 9)).toEqual(['ignore', 'pipe', 'pipe', 'pipe', 'pipe', 9]);
    expect(sandboxStdio([3], [3, 4], 9)).toEqual(['ignore', 'pipe', 'pipe', 'pipe', 9]);
  });
});
