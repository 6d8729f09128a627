import { spawnSync } from 'node:child_process';
import { homedir } from 'node:os';
import { join } from 'node:path';
import { readFile, rm, writeFile } from 'node:fs/promises';
import { describe, expect, it } from 'vitest';
import { hostView } from '../../src/adapters/sandbox/host-view.js';
import { CHECK_LIMITS } from '../../src/adapters/sandbox/limits.js';
import { runSandboxed } from '../../src/adapters/sandbox/run-sandboxed.js';
import type { Mount, SandboxSpec } from '../../src/adapters/sandbox/view.js';
import { useTempDirs } from '../helpers/tmp.js';
import { machineSandbox } from '../helpers/settings.js';

/**
 * A place the sandbox hides that is gone when it starts (a root-only file of /etc removed after
 * /etc was read, while the checkout was written: another test's canary did this to a check): there
 * is nothing left to hide, so the command runs without it, instead of failing with bubblewrap's
 * "Can't create file at …". Only a hidden place the host no longer has is dropped.
 */

const tempDir = useTempDirs();
const found = await machineSandbox();
const bwrap = found?.name === 'bubblewrap' ? found : undefined;
const OPTIONS = { timeoutMs: 30_000, limits: CHECK_LIMITS, maxOutputBytes: 64 * 1024 };

/** A spec that shows `shown` read-only (at its own path), `log` writable, and hides `hidden`. */
async function specOf(shown: string, log: string, hidden: Mount[], script: string) {
  const view = await hostView(process.env['PATH'] ?? '', homedir());
  const spec: SandboxSpec = {
    mounts: [
      ...view.mounts,
      { kind: 'ro-bind', source: shown, target: shown },
      ...hidden,
      { kind: 'bind', source: log, target: log },
    ],
    env: { PATH: view.path },
    cwd: '/',
    argv: ['sh', '-c', script],
  };
  return spec;
}

describe.skipIf(bwrap === undefined)('a hidden place gone before the sandbox starts', () => {
  it('runs the command without it, and still hides what is there', async () => {
    const shown = await tempDir();
    const log = await tempDir();
    await writeFile(join(shown, 'open'), 'readable\n');
    await writeFile(join(shown, 'secret'), 'SECRET\n');
    const spec = await specOf(
      shown,
      log,
      [
        { kind: 'hide', path: join(shown, 'gone-file'), directory: false },
        { kind: 'hide', path: join(shown, 'gone-dir'), directory: true },
        { kind: 'hide', path: join(shown, 'secret'), directory: false },
      ],
      `echo ran >> ${log}/runs; cat ${shown}/open; cat ${shown}/secret`,
    );
    // The scene is the failure: bubblewrap alone refuses to start on it.
    const [file, ...args] = bwrap!.argv(spec, '/nonexistent');
    const alone = spawnSync(file!, args, { encoding: 'utf8' });
    expect(alone.status).toBe(1);
    expect(alone.stderr).toMatch(/^bwrap: Can't (create file at|mkdir) /);
    const result = await runSandboxed(bwrap!, spec, OPTIONS);
    expect(result.stderr).not.toMatch(/Can't/);
    expect(result.stdout).toContain('readable');
    expect(result.stdout).not.toContain('SECRET');
    expect(await readFile(join(log, 'runs'), 'utf8')).toBe('ran\n');
  });

  it('does not drop a hidden place that is there, whatever the command prints', async () => {
    const shown = await tempDir();
    const log = await tempDir();
    await writeFile(join(shown, 'secret'), 'SECRET\n');
    const secret = join(shown, 'secret');
    const spec = await specOf(
      shown,
      log,
      [{ kind: 'hide', path: secret, directory: false }],
      `echo ran >> ${log}/runs; cat ${secret} >> ${log}/seen; echo "bwrap: Can't create file at ${secret}: Read-only file system" >&2; exit 1`,
    );
    const result = await runSandboxed(bwrap!, spec, OPTIONS);
    expect(result.ok).toBe(false);
    expect(await readFile(join(log, 'runs'), 'utf8')).toBe('ran\n');
    expect(await readFile(join(log, 'seen'), 'utf8').catch(() => '')).not.toContain('SECRET');
    await rm(secret);
  });
});
