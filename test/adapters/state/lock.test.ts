import { spawn } from 'node:child_process';
import { mkdir, readFile, readdir, symlink, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { WorkspaceLock } from '../../../src/adapters/state/lock.js';
import { currentProcess } from '../../../src/adapters/os/process-identity.js';
import { useTempDirs } from '../../helpers/tmp.js';
import { bundleScript } from '../../helpers/bundle.js';

const tempDir = useTempDirs();
const LOCK = 'maker-state.json.lock';

describe('WorkspaceLock', () => {
  it('admits exactly one holder in a process, however the workspace is spelled', async () => {
    const dir = await tempDir();
    const alias = join(await tempDir(), 'alias');
    await symlink(dir, alias);
    const locks = [
      new WorkspaceLock(join(dir, LOCK)),
      new WorkspaceLock(join(dir, LOCK)),
      new WorkspaceLock(join(alias, LOCK)),
    ];
    const results = await Promise.allSettled(locks.map((l) => l.acquire()));
    expect(results.filter((r) => r.status === 'fulfilled')).toHaveLength(1);
    for (const r of results)
      if (r.status === 'rejected')
        expect((r.reason as Error).message).toMatch(/This process already works on this workspace/);
    const holder = locks.find((l) => l.held) as WorkspaceLock;
    await holder.acquire(); // re-entrant for its own holder
    await holder.release();
    await locks[2]?.acquire(); // free again, through the symlink too
    expect(locks[2]?.held).toBe(true);
    await locks[2]?.release();
  });

  it('writes the owner whole: pid, process start time and boot, and reads it back', async () => {
    const dir = await tempDir();
    const lock = new WorkspaceLock(join(dir, LOCK), { command: 'run' });
    await lock.acquire();
    const owner = JSON.parse(await readFile(join(dir, LOCK), 'utf8')) as Record<string, unknown>;
    expect(owner).toMatchObject({ pid: process.pid, command: 'run' });
    expect(owner['startTime']).toBe(currentProcess().startTime);
    expect(typeof owner['startTime']).toBe('string');
    const seen = await WorkspaceLock.inspect(join(dir, LOCK));
    expect(seen?.state).toBe('live');
    expect(seen?.owner.pid).toBe(process.pid);
    await lock.release();
    expect(await WorkspaceLock.inspect(join(dir, LOCK))).toBeUndefined();
    expect((await readdir(dir)).filter((f) => f.includes('.tmp'))).toEqual([]);
  });

  it('refuses a live owner with the way out, and takes over a pid reused by another process', async () => {
    const dir = await tempDir();
    const parent = process.ppid;
    const { readFileSync } = await import('node:fs');
    const stat = readFileSync(`/proc/${parent}/stat`, 'utf8');
    const realStart = stat.slice(stat.lastIndexOf(')') + 2).split(' ')[19];
    const path = join(dir, LOCK);
    await writeFile(
      path,
      JSON.stringify({ pid: parent, startTime: realStart, bootId: currentProcess().bootId }),
    );
    const lock = new WorkspaceLock(path);
    await expect(lock.acquire()).rejects.toThrow(
      new RegExp(`pid ${parent}\\).*kill ${parent}.*delete ${path.replace(/[.]/g, '\\.')}`),
    );
    // Same pid, another start time: the pid now belongs to an unrelated process.
    await writeFile(path, JSON.stringify({ pid: parent, startTime: '1', bootId: 'x' }));
    expect((await WorkspaceLock.inspect(path))?.state).toBe('stale');
    await lock.acquire();
    expect(lock.held).toBe(true);
    await lock.release();
  });

  it('honours an older maker’s bare-pid lock while that pid lives, and takes it over once it is gone', async () => {
    const dir = await tempDir();
    const path = join(dir, LOCK);
    await writeFile(path, `${process.ppid}\n`);
    await expect(new WorkspaceLock(path).acquire()).rejects.toThrow(/is working on this workspace/);
    await writeFile(path, '999999\n');
    const lock = new WorkspaceLock(path);
    await lock.acquire();
    expect(lock.held).toBe(true);
    await lock.release();
  });

  it('never removes a lock that another holder took over', async () => {
    const dir = await tempDir();
    const path = join(dir, LOCK);
    const lock = new WorkspaceLock(path);
    await lock.acquire();
    await writeFile(path, JSON.stringify({ pid: process.ppid, token: 'someone-else' }));
    await lock.release();
    expect(await readFile(path, 'utf8')).toContain('someone-else');
  });

  it('lets exactly one of several processes take a stale lock at once', async () => {
    const dir = await tempDir();
    const bundle = join(await tempDir(), 'lock-child.mjs');
    await bundleScript(
      `import { WorkspaceLock } from ${JSON.stringify(join(process.cwd(), 'src/adapters/state/lock.ts'))};
const lock = new WorkspaceLock(process.argv[2]);
try { await lock.acquire(); process.stdout.write('won'); process.stdin.resume(); await new Promise((r) => process.stdin.on('end', r)); await lock.release(); }
catch (e) { process.stdout.write(/is working on this workspace|keeps taking it/.test(e.message) ? 'refused' : 'error ' + e.message); }`,
      bundle,
    );
    for (let trial = 0; trial < 4; trial++) {
      const ws = join(dir, `t${trial}`);
      await mkdir(ws);
      await writeFile(join(ws, LOCK), JSON.stringify({ pid: 999_999, startTime: '5' }));
      // A winner holds the lock until its stdin closes: once every other process has answered
      // (an event, not a time, so a slow start under load cannot find the lock released).
      const children = Array.from({ length: 4 }, () =>
        spawn(process.execPath, [bundle, join(ws, LOCK)], {
          stdio: ['pipe', 'pipe', 'inherit'],
        }),
      );
      for (const c of children) c.stdin.on('error', () => undefined); // one already gone
      let answered = 0;
      const outputs = await Promise.all(
        children.map(
          (child) =>
            new Promise<string>((resolve, reject) => {
              let out = '';
              const answer = () => {
                answered += 1;
                if (answered === children.length) for (const c of children) c.stdin.end();
              };
              child.stdout.on('data', (chunk: Buffer) => {
                const first = out === '';
                out += chunk.toString();
                if (first) answer();
              });
              child.on('error', reject);
              child.on('close', () => resolve(out));
            }),
        ),
      );
      expect(outputs.filter((o) => o === 'won')).toHaveLength(1);
      expect(outputs.filter((o) => o === 'refused')).toHaveLength(3);
    }
  }, 60_000);
});
