import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { createServer, type Server } from 'node:net';
import { homedir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterEach, describe, expect, it } from 'vitest';
import { GitWorkspace } from '../../../src/adapters/git/git-workspace.js';
import { sweepScratch } from '../../../src/adapters/git/scratch.js';
import {
  startFakeNpmRegistry,
  type FakeNpmRegistry,
} from '../../../src/offline/fake-npm-registry.js';
import { proxiedGet } from '../../helpers/sandbox.js';
import { useTempDirs } from '../../helpers/tmp.js';
import { machineSandbox } from '../../helpers/settings.js';

const tempDir = useTempDirs();
const execFileAsync = promisify(execFile);

/**
 * Directories outside `/tmp` (the sandbox has a private `/tmp`, so a place there proves nothing):
 * under the checkout, or under the home directory when the checkout is itself in `/tmp`.
 */
const outside: string[] = [];
afterEach(async () => {
  await Promise.all(outside.splice(0).map((d) => rm(d, { recursive: true, force: true })));
});
async function outsideTmp(): Promise<string> {
  const inTmp = (path: string) => path === '/tmp' || path.startsWith('/tmp/');
  const cache = inTmp(process.cwd())
    ? join(homedir(), '.cache')
    : join(process.cwd(), 'node_modules', '.cache');
  await mkdir(cache, { recursive: true });
  const dir = await mkdtemp(join(cache, 'maker-confined-'));
  outside.push(dir);
  return dir;
}

// Each sandbox MAKER can use, found as MAKER finds it with MAKER_SANDBOX naming it (the seam that
// hides bubblewrap from the probe): a machine where one does not work skips its tests.
for (const name of ['bubblewrap', 'unshare'] as const) {
  const sandbox = await machineSandbox(name);

  async function repo(dir?: string, env?: Record<string, string | undefined>) {
    const ws = await GitWorkspace.open(dir ?? (await tempDir()), {
      create: true,
      sandbox: () => Promise.resolve(sandbox),
      ...(env === undefined ? {} : { env: { ...process.env, ...env } }),
    });
    return { ws, base: (await ws.resolve('main')) as string };
  }

  describe.skipIf(sandbox === undefined)(`a check, confined by ${name}`, () => {
    it('is run by that sandbox, and runs in a copy of the tree, with an empty home of its own', async () => {
      const { ws, base } = await repo();
      try {
        expect(sandbox?.name).toBe(name);
        const tree = await ws.treeWithEdits(base, [{ path: 'src/a.txt', content: 'A\n' }]);
        const ran = await ws.runCheck(
          tree,
          'echo ran in "$PWD"; echo "$HOME"; ls -A "$HOME"; cat src/a.txt',
          20_000,
        );
        expect(ran).toEqual({ ok: true, output: 'ran in /checkout\n/home/maker\nA\n' });
      } finally {
        await ws.close();
      }
    });

    it('cannot reach a listener on 127.0.0.1 in the parent (no network)', async () => {
      let connections = 0;
      const server: Server = createServer((socket) => {
        connections += 1;
        socket.end();
      });
      await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
      const { port } = server.address() as { port: number };
      const { ws, base } = await repo();
      try {
        const script = `require('net').connect(${port}, '127.0.0.1').on('connect', () => process.exit(0)).on('error', (e) => { console.log(e.code); process.exit(1); })`;
        const result = await ws.runCheck(base, `"${process.execPath}" -e "${script}"`, 20_000);
        expect(result.ok).toBe(false);
        expect(result.output).toMatch(/ENETUNREACH|ECONNREFUSED/);
        expect(connections).toBe(0);
      } finally {
        await ws.close();
        await new Promise((resolve) => server.close(resolve));
      }
    });

    it('writes in its checkout and a private /tmp, nowhere else', async () => {
      const target = await outsideTmp();
      const { ws, base } = await repo();
      try {
        const inside = await ws.runCheck(
          base,
          'echo a > here.txt && echo b > /tmp/t && cat here.txt /tmp/t',
          20_000,
        );
        expect(inside).toEqual({ ok: true, output: 'a\nb\n' });
        // The place does not exist inside (nothing of the host is there unless allowed), and the
        // system that does is read-only.
        const outside = await ws.runCheck(base, `echo pwned > ${target}/pwned`, 20_000);
        expect(outside.ok).toBe(false);
        expect(outside.output).toMatch(/Directory nonexistent/);
        expect(existsSync(join(target, 'pwned'))).toBe(false);
        const system = await ws.runCheck(base, 'echo pwned > /usr/pwned', 20_000);
        expect(system.output).toMatch(/Read-only file system/);
      } finally {
        await ws.close();
      }
    });

    it('sees the dependency cache read-only (installed in the same sandbox, through the registry proxy)', async () => {
      const registry: FakeNpmRegistry = await startFakeNpmRegistry();
      const { ws, base } = await repo(undefined, { npm_config_registry: registry.url });
      try {
        // The install reaches the configured registry (through MAKER's proxy, its only way out)
        // and writes its cache.
        const install = `${proxiedGet(`${registry.url}installing`)} && echo dep > "$MAKER_DEPS/dep.txt" && mkdir node_modules && echo m > node_modules/m.txt`;
        const check =
          'cat "$MAKER_DEPS/dep.txt" node_modules/m.txt && (echo x > "$MAKER_DEPS/dep.txt" || echo cache-ro) && (echo x > node_modules/m.txt || echo modules-ro) && cat "$MAKER_DEPS/dep.txt"';
        const withLock = await ws.treeWithEdits(base, [
          { path: 'package-lock.json', content: '{}\n' },
        ]);
        const result = await ws.runCheck(withLock, check, 60_000, undefined, { install });
        // Its output is stdout, then stderr (where the refused writes are told).
        expect(result.ok).toBe(true);
        expect(result.output).toMatch(/^dep\nm\ncache-ro\nmodules-ro\ndep\n/);
        expect(result.output.match(/Read-only file system/g)).toHaveLength(2);
        expect(registry.requests.filter((r) => r.path === '/installing')).toHaveLength(1);
      } finally {
        await ws.close();
        await registry.close();
      }
    });

    it('holds no capabilities, so even under root it cannot remount the system writable', async () => {
      const { ws, base } = await repo();
      const target = await outsideTmp();
      try {
        const caps = await ws.runCheck(base, 'grep CapEff /proc/self/status', 20_000);
        expect(caps.output).toMatch(/^CapEff:\s*0+\s*$/);
        const escape = await ws.runCheck(
          base,
          `mount -o remount,rw,bind / ; echo pwned > ${target}/pwned`,
          20_000,
        );
        expect(escape.ok).toBe(false);
        expect(existsSync(join(target, 'pwned'))).toBe(false);
      } finally {
        await ws.close();
      }
    });

    it('cannot read the repository it checks (its .git, the state) nor other runs', async () => {
      const dir = await outsideTmp();
      const { ws, base } = await repo(dir);
      await writeFile(join(dir, 'maker-state.json'), '{"secret":"state"}\n');
      try {
        for (const read of [`cat ${dir}/.git/config`, `cat ${dir}/maker-state.json`]) {
          const result = await ws.runCheck(base, read, 20_000);
          expect(result.ok).toBe(false);
          expect(result.output).not.toMatch(/repositoryformatversion|secret/);
        }
      } finally {
        await ws.close();
      }
    });

    it('cannot reach a service on a unix socket under /run (a D-Bus bus, docker, a database)', async () => {
      const run = await mkdtemp('/run/maker-test-').catch(() => undefined);
      if (run === undefined) return; // /run is not writable here: nothing to prove with.
      let connections = 0;
      const server: Server = createServer((socket) => {
        connections += 1;
        socket.end();
      });
      const path = join(run, 'service.sock');
      await new Promise<void>((resolve) => server.listen(path, resolve));
      const { ws, base } = await repo();
      try {
        const script = `require('net').connect('${path}').on('connect', () => process.exit(0)).on('error', () => process.exit(1))`;
        const result = await ws.runCheck(base, `"${process.execPath}" -e "${script}"`, 20_000);
        expect(result.ok).toBe(false);
        expect(connections).toBe(0);
      } finally {
        await ws.close();
        await new Promise((resolve) => server.close(resolve));
        await rm(run, { recursive: true, force: true });
      }
    });

    it('says why it failed, timeout or too much output, whatever it printed before', async () => {
      const { ws, base } = await repo();
      try {
        const slow = await ws.runCheck(base, 'yes working | head -c 10000; sleep 30', 1000);
        expect(slow.ok).toBe(false);
        expect(slow.output).toMatch(/timed out after 1000 ms\s*$/);
        const loud = await ws.runCheck(base, 'yes | head -c 20000000', 20_000);
        expect(loud.ok).toBe(false);
        expect(loud.output).toMatch(/printed more than \d+ bytes\s*$/);
        expect(loud.output).not.toMatch(/timed out/);
      } finally {
        await ws.close();
      }
    });

    it('gets no input: a command that reads stdin sees its end instead of waiting out the timeout', async () => {
      const { ws, base } = await repo();
      try {
        expect(await ws.runCheck(base, 'cat; echo read-all', 10_000)).toEqual({
          ok: true,
          output: 'read-all\n',
        });
      } finally {
        await ws.close();
      }
    }, 20_000);

    it('leaves a checkout that is hard to remove (too deep for a path) without failing the run', async () => {
      const { ws, base } = await repo();
      try {
        const deep =
          'for i in $(seq 1 300); do mkdir aaaaaaaaaaaaaaaaaaaa && cd -P aaaaaaaaaaaaaaaaaaaa; done';
        expect(await ws.runCheck(base, `${deep} && echo deep`, 20_000)).toEqual({
          ok: true,
          output: 'deep\n',
        });
      } finally {
        await ws.close();
      }
    });
  });
}

describe('scratch left by a dead process', () => {
  it('is swept even when too deep for a path, and an unremovable one never blocks opening', async () => {
    const root = await tempDir();
    const left = join(root, 'maker-check-999999-5-abc');
    await mkdir(left);
    await execFileAsync('sh', [
      '-c',
      'cd "$1" && for i in $(seq 1 300); do mkdir aaaaaaaaaaaaaaaaaaaa && cd -P aaaaaaaaaaaaaaaaaaaa; done',
      'sh',
      left,
    ]);
    await sweepScratch(root);
    expect(existsSync(left)).toBe(false);
    // An immutable file (root can make one) resists every removal: the sweep leaves it, quietly.
    const stuck = join(root, 'maker-check-999999-5-def');
    await mkdir(stuck);
    await writeFile(join(stuck, 'f'), '');
    const immutable = await execFileAsync('chattr', ['+i', join(stuck, 'f')]).then(
      () => true,
      () => false,
    );
    try {
      await expect(sweepScratch(root)).resolves.toBeUndefined();
    } finally {
      if (immutable) await execFileAsync('chattr', ['-i', join(stuck, 'f')]);
    }
  });
});
