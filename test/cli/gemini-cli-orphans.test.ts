import { execFileSync } from 'node:child_process';
import { existsSync, readdirSync } from 'node:fs';
import { mkdir, readdir, symlink } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { spawnMaker } from '../helpers/cli.js';
import { alive, stubGemini, untilLogged, type StubGemini } from '../helpers/stub-gemini.js';
import { processesNaming, until } from '../helpers/processes.js';
import { useTempDirs } from '../helpers/tmp.js';

/**
 * No `gemini` outlives maker: ended by Ctrl-C (SIGINT), terminated (SIGTERM) or killed outright
 * (SIGKILL; these two leave maker no chance to clean up), every process MAKER's Gemini CLI access
 * started (the stub `gemini` and a process it started of its own) is gone within a second or two,
 * and MAKER's private directory with it.
 */
const tempDir = useTempDirs();
const linux = existsSync('/proc/self/stat');

async function gitOnlyPath(): Promise<string> {
  const bin = join(await tempDir(), 'bin');
  await mkdir(bin);
  const git = execFileSync('sh', ['-c', 'command -v git'], { encoding: 'utf8' }).trim();
  await symlink(git, join(bin, 'git'));
  return bin;
}

/** `maker run` through the stub `gemini`, held mid-call; resolves once its prompt is in flight. */
async function heldRun(stub: StubGemini, tmp: string) {
  const { child } = spawnMaker(
    [
      'run',
      'a CLI that converts CSV to JSON',
      '--dir',
      join(await tempDir(), 'repo'),
      '--worker',
      'gemini',
      '--model-access',
      'gemini-cli',
      '--hitl',
      'auto',
      '--no-checks',
    ],
    { env: { PATH: `${stub.bin}:${await gitOnlyPath()}`, HOME: await tempDir(), TMPDIR: tmp } },
  );
  const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
  const log = await untilLogged(
    stub,
    (l) =>
      l.some((e) => e.in?.method === 'session/prompt') && l.some((e) => e.grandchild !== undefined),
    60_000,
  );
  const grandchildren = log.flatMap((e) => (e.grandchild === undefined ? [] : [e.grandchild]));
  return { child, exited, grandchildren };
}

describe.runIf(linux)('no gemini outlives maker', () => {
  it.each(['SIGKILL', 'SIGTERM', 'SIGINT'] as const)(
    'after %s of maker mid-call: 0 processes of its gemini left, its private directory gone',
    async (signal) => {
      const stub = await stubGemini(await tempDir(), { hold: true, grandchild: true });
      const tmp = await tempDir();
      const { child, exited, grandchildren } = await heldRun(stub, tmp);
      expect(processesNaming(stub.bin).length).toBeGreaterThan(0);
      expect(readdirSync(tmp).some((n) => n.startsWith('maker-gemini-cli-'))).toBe(true);
      const sent = Date.now();
      child.kill(signal);
      expect(
        await until(
          () => processesNaming(stub.bin).length === 0 && grandchildren.every((pid) => !alive(pid)),
          1000,
        ),
        `left: ${processesNaming(stub.bin).join(', ')}`,
      ).toBe(true);
      // SIGINT: maker ends them itself; otherwise their group's leader sees maker gone.
      expect(Date.now() - sent).toBeLessThan(1000);
      await exited;
      expect(
        await until(() => !readdirSync(tmp).some((n) => n.startsWith('maker-gemini-cli-')), 3000),
        `left: ${(await readdir(tmp)).join(', ')}`,
      ).toBe(true);
    },
    120_000,
  );

  it('Ctrl-C while a gemini hangs at start-up (its sign-in check): maker ends at once, nothing left, nothing created', async () => {
    const stub = await stubGemini(await tempDir(), { hang: true, grandchild: true });
    const tmp = await tempDir();
    const dir = join(await tempDir(), 'repo');
    const { child } = spawnMaker(
      ['run', 'a CLI', '--dir', dir, '--worker', 'gemini', '--model-access', 'gemini-cli'],
      { env: { PATH: `${stub.bin}:${await gitOnlyPath()}`, HOME: await tempDir(), TMPDIR: tmp } },
    );
    let err = '';
    child.stderr.on('data', (chunk: Buffer) => (err += chunk.toString()));
    const exited = new Promise<number | null>((resolve) =>
      child.on('exit', (code) => resolve(code)),
    );
    // The sign-in check is running (and hanging): its gemini started a process of its own.
    const log = await untilLogged(stub, (l) => l.some((e) => e.grandchild !== undefined), 60_000);
    const grandchildren = log.flatMap((e) => (e.grandchild === undefined ? [] : [e.grandchild]));
    const sent = Date.now();
    child.kill('SIGINT');
    const code = await exited;
    expect(Date.now() - sent, err).toBeLessThan(1500);
    expect(code, err).toBe(130);
    expect(
      await until(
        () => processesNaming(stub.bin).length === 0 && grandchildren.every((pid) => !alive(pid)),
        1000,
      ),
      `left: ${processesNaming(stub.bin).join(', ')}`,
    ).toBe(true);
    expect(
      await until(() => readdirSync(tmp).length === 0, 3000),
      `left: ${(await readdir(tmp)).join(', ')}`,
    ).toBe(true);
    expect(existsSync(dir)).toBe(false);
  }, 120_000);
});
