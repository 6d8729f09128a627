import { execFile, spawn } from 'node:child_process';
import { readdir, readFile } from 'node:fs/promises';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';
import { GitWorkspace } from '../../src/adapters/git/git-workspace.js';
import { CHECK_LIMITS, checkLimits, limitSupport } from '../../src/adapters/sandbox/limits.js';
import { CLI } from '../helpers/cli.js';
import { useTempDirs } from '../helpers/tmp.js';
import { machineSandbox } from '../helpers/settings.js';

const tempDir = useTempDirs();
const execFileAsync = promisify(execFile);

/** Every `sleep` on the machine whose argument holds `marker` (not MAKER, whose argv names it too). */
async function processesWith(marker: string): Promise<number[]> {
  const found: number[] = [];
  for (const name of await readdir('/proc')) {
    if (!/^\d+$/.test(name)) continue;
    const cmdline = await readFile(`/proc/${name}/cmdline`, 'utf8').catch(() => '');
    if (cmdline.startsWith('sleep\0') && cmdline.includes(marker)) found.push(Number(name));
  }
  return found;
}

/** How many processes the machine runs now. */
async function processCount(): Promise<number> {
  return (await readdir('/proc')).filter((n) => /^\d+$/.test(n)).length;
}

/** A repository with one commit, for `maker sandbox` to run on. */
async function repository(): Promise<string> {
  const dir = await tempDir();
  const git = (...args: string[]) => execFileAsync('git', ['-C', dir, ...args]);
  await git('init', '-q', '-b', 'main');
  await git(
    '-c',
    'user.name=t',
    '-c',
    'user.email=t@t',
    'commit',
    '-q',
    '--allow-empty',
    '-m',
    'x',
  );
  return dir;
}

const limits = await limitSupport();

/** The memory limit the allocating check runs under (a real check's is {@link CHECK_LIMITS}'). */
const TEST_MEMORY_MIB = 128;

for (const name of ['bubblewrap', 'unshare'] as const) {
  const sandbox = await machineSandbox(name);

  async function check(command: string, timeoutMs = 60_000, memoryMiB?: number) {
    const ws = await GitWorkspace.open(await tempDir(), {
      create: true,
      sandbox: () => Promise.resolve(sandbox),
      checkLimits: checkLimits(memoryMiB),
    });
    try {
      return await ws.runCheck((await ws.resolve('main')) as string, command, timeoutMs);
    } finally {
      await ws.close();
    }
  }

  describe.skipIf(sandbox === undefined)(`the limits of a check in ${name}`, () => {
    it.skipIf(limits.processes === 'none' || limits.processes === 'rlimit')(
      'stop a fork bomb at the process limit, saying so, with the machine never far above its usual count',
      async () => {
        const before = await processCount();
        let most = before;
        const sampling = setInterval(() => {
          void processCount().then((n) => (most = Math.max(most, n)));
        }, 50);
        try {
          const result = await check('f() { f | f & }; f; sleep 100');
          expect(result.ok).toBe(false);
          expect(result.output).toMatch(
            /stopped: it tried to run more than 256 processes at once \(the sandbox's process limit\)\s*$/,
          );
        } finally {
          clearInterval(sampling);
        }
        // The limit is the sandbox's own (256), whatever the machine ran besides.
        expect(most - before).toBeLessThan(400);
      },
    );

    /**
     * Proves: a check's memory limit holds. The limit is lowered to 128 MiB here
     * (a workspace's `checkLimits`, as MAKER_TEST_CHECK_MEMORY_MIB sets it; the same control group and `prlimit` that hold a real check's
     * 2 GiB), so a check stopped at it has written 128 MiB, not 2 GiB (page faults are most of the
     * CPU); a real check's limit is below the 3 GiB this one asks for.
     */
    it('fail a check that allocates 3 GiB, stopped at its memory limit', async () => {
      expect(CHECK_LIMITS.memoryBytes).toBeLessThan(3 * 1024 ** 3);
      expect(checkLimits()).toBe(CHECK_LIMITS);
      expect(checkLimits(4096)).toBe(CHECK_LIMITS); // lowered only, never raised
      const result = await check(
        `"${process.execPath}" -e "const a = []; for (let i = 0; i < 30; i++) a.push(Buffer.alloc(100 * 1024 * 1024, 1)); console.log('allocated')"`,
        60_000,
        TEST_MEMORY_MIB,
      );
      expect(result.ok).toBe(false);
      expect(result.output).not.toContain('allocated');
      // Stopped by the memory limit (node's allocation refused, or the group's limit reached).
      expect(result.output).toMatch(
        new RegExp(
          `Array buffer allocation failed|used more than ${TEST_MEMORY_MIB} MiB of memory \\(the sandbox's memory limit\\)`,
        ),
      );
    });

    it('fail a check that writes more than its checkout holds, or one file past the file limit', async () => {
      const many = await check(
        'for i in 1 2 3 4 5; do head -c 300000000 /dev/zero > part$i || exit 1; done; echo wrote',
      );
      expect(many.ok).toBe(false);
      expect(many.output).toMatch(/No space left on device|File size limit exceeded/);
      expect(many.output).not.toContain('wrote');
      const one = await check('head -c 600000000 /dev/zero > big && echo wrote');
      expect(one.ok).toBe(false);
      expect(one.output).not.toContain('wrote');
    });
  });

  describe.skipIf(sandbox === undefined)(`what a check in ${name} starts`, () => {
    /** Starts `maker sandbox` on a check that runs two marked sleeps, one in a session of its own. */
    async function started(marker: string) {
      const dir = await repository();
      const child = spawn(
        process.execPath,
        [
          CLI,
          'sandbox',
          `(setsid sleep ${marker}1 &); sleep ${marker}2`,
          '--dir',
          dir,
          '--install',
          'none',
        ],
        {
          stdio: ['ignore', 'pipe', 'pipe'],
          env: {
            PATH: process.env['PATH'] ?? '',
            HOME: process.env['HOME'] ?? '',
            MAKER_SANDBOX: name,
          },
        },
      );
      const exited = new Promise<number | null>((resolve) =>
        child.on('exit', (code) => resolve(code)),
      );
      await expect
        .poll(async () => (await processesWith(`${marker}2`)).length, { timeout: 60_000 })
        .toBeGreaterThan(0);
      await expect
        .poll(async () => (await processesWith(`${marker}1`)).length, { timeout: 60_000 })
        .toBeGreaterThan(0);
      return { child, exited };
    }

    it('does not outlive MAKER killed by SIGKILL', async () => {
      const marker = `42${Math.floor(Math.random() * 1e6)}.`;
      const { child, exited } = await started(marker);
      child.kill('SIGKILL');
      await exited;
      await expect.poll(() => processesWith(marker), { timeout: 10_000 }).toEqual([]);
    });

    it('ends within seconds of Ctrl-C, and MAKER exits 130', async () => {
      const marker = `43${Math.floor(Math.random() * 1e6)}.`;
      const { child, exited } = await started(marker);
      const at = Date.now();
      child.kill('SIGINT');
      expect(await exited).toBe(130);
      expect(Date.now() - at).toBeLessThan(10_000);
      expect(await processesWith(marker)).toEqual([]);
    });
  });
}
