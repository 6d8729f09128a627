import { execFileSync, spawnSync } from 'node:child_process';
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { keyringFilter } from '../../src/adapters/sandbox/seccomp.js';
import { bareEnv, CLI } from '../helpers/cli.js';
import { machineSandbox } from '../helpers/settings.js';
import { useTempDirs } from '../helpers/tmp.js';

/**
 * A check cannot reach the kernel's keyrings. Namespaces do not separate the session keyring: a
 * sandbox started from a login session keeps it, and a check could read the keys kept there (a
 * login's, a Kerberos ticket's, a mounted share's). bubblewrap loads a seccomp filter that refuses
 * `add_key`, `request_key` and `keyctl`.
 */

const tempDir = useTempDirs();
const python = spawnSync('python3', ['-c', 'import ctypes'], { stdio: 'ignore' }).status === 0;
const bwrap = await machineSandbox('bubblewrap');
const NUMBERS: Record<string, { addKey: number; keyctl: number }> = {
  x64: { addKey: 248, keyctl: 250 },
  arm64: { addKey: 217, keyctl: 219 },
};
const numbers = NUMBERS[process.arch];

/** Reads the canary key of the session keyring (`read`), or joins a new one, adds it and runs argv. */
const SCRIPT = String.raw`
import ctypes, os, sys
libc = ctypes.CDLL(None, use_errno=True)
ADD_KEY, KEYCTL = int(sys.argv[1]), int(sys.argv[2])
if sys.argv[3] == 'read':
    key = libc.syscall(KEYCTL, 10, -3, b"user", b"maker-canary", 0)
    buf = ctypes.create_string_buffer(64)
    n = libc.syscall(KEYCTL, 11, key, buf, 64) if key > 0 else -1
    print("read:", buf.value.decode() if n > 0 else "nothing", "errno", ctypes.get_errno())
else:
    assert libc.syscall(KEYCTL, 1, b"maker-test-session") > 0
    assert libc.syscall(ADD_KEY, b"user", b"maker-canary", b"KEYRING-SECRET-51", 17, -3) > 0
    os.execvp(sys.argv[4], sys.argv[4:])
`;

/** A repository holding the script, where `maker sandbox` runs. */
async function repository(): Promise<string> {
  const dir = await tempDir();
  await writeFile(join(dir, 'keys.py'), SCRIPT);
  const git = (...args: string[]) => execFileSync('git', ['-C', dir, ...args]);
  git('init', '-q', '-b', 'main');
  git('add', 'keys.py');
  git('-c', 'user.name=t', '-c', 'user.email=t@t', 'commit', '-q', '-m', 'x');
  return dir;
}

/** Runs `argv` in a new session keyring holding the canary key. */
function withKey(dir: string, argv: string[], env: Record<string, string> = {}): string {
  const { addKey, keyctl } = numbers!;
  const args = ['keys.py', String(addKey), String(keyctl), 'add', ...argv];
  const out = spawnSync('python3', args, { cwd: dir, encoding: 'utf8', env: bareEnv(env) });
  return `${out.stdout}${out.stderr}`;
}

describe.skipIf(!python || numbers === undefined)('the session keyring', () => {
  it('the scene proves something: unconfined, a program reads the key', async () => {
    const dir = await repository();
    const { addKey, keyctl } = numbers!;
    const out = withKey(dir, ['python3', 'keys.py', String(addKey), String(keyctl), 'read']);
    expect(out).toContain('read: KEYRING-SECRET-51');
  });

  it.skipIf(bwrap === undefined)('is out of reach of a check in bubblewrap', async () => {
    const dir = await repository();
    const { addKey, keyctl } = numbers!;
    const out = withKey(
      dir,
      [process.execPath, CLI, 'sandbox', `python3 keys.py ${addKey} ${keyctl} read`],
      { MAKER_SANDBOX: 'bubblewrap' },
    );
    expect(out).toContain('read: nothing errno 1');
    expect(out).not.toContain('KEYRING-SECRET-51');
  });
});

/** Runs a classic BPF seccomp program (the instructions the filter uses) on one system call. */
function run(filter: Buffer, arch: number, nr: number): number {
  let acc = 0;
  for (let pc = 0; ; pc++) {
    const code = filter.readUInt16LE(pc * 8);
    const [jt, jf, k] = [filter[pc * 8 + 2]!, filter[pc * 8 + 3]!, filter.readUInt32LE(pc * 8 + 4)];
    if (code === 0x06) return k;
    if (code === 0x20) acc = k === 0 ? nr : arch;
    else if (code === 0x15) pc += acc === k ? jt : jf;
    else if (code === 0x35) pc += acc >= k ? jt : jf;
    else throw new Error(`unexpected instruction ${code}`);
  }
}

describe('the keyring filter', () => {
  const ALLOW = 0x7fff0000;
  const EPERM = 0x00050001;
  it('refuses the keyring calls of x86-64 and i386, x32 whole and other architectures, and allows the rest', () => {
    const filter = keyringFilter('x64')!;
    for (const nr of [248, 249, 250]) expect(run(filter, 0xc000003e, nr)).toBe(EPERM);
    for (const nr of [0, 1, 59, 247, 251, 435]) expect(run(filter, 0xc000003e, nr)).toBe(ALLOW);
    expect(run(filter, 0xc000003e, 0x40000000 + 250)).toBe(EPERM);
    for (const nr of [286, 287, 288]) expect(run(filter, 0x40000003, nr)).toBe(EPERM);
    expect(run(filter, 0x40000003, 3)).toBe(ALLOW);
    expect(run(filter, 0xc00000b7, 3)).toBe(EPERM);
  });

  it('refuses those of arm64 and arm, and has no filter for an architecture it does not know', () => {
    const filter = keyringFilter('arm64')!;
    for (const nr of [217, 218, 219]) expect(run(filter, 0xc00000b7, nr)).toBe(EPERM);
    expect(run(filter, 0xc00000b7, 63)).toBe(ALLOW);
    for (const nr of [309, 310, 311]) expect(run(filter, 0x40000028, nr)).toBe(EPERM);
    expect(run(filter, 0x40000028, 3)).toBe(ALLOW);
    expect(run(filter, 0xc000003e, 0)).toBe(EPERM);
    expect(keyringFilter('riscv64')).toBeUndefined();
  });
});
