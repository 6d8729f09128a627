import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdir, readFile, symlink } from 'node:fs/promises';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';
import { maker, simRun } from '../helpers/cli.js';
import { useTempDirs } from '../helpers/tmp.js';
import { machineSandbox } from '../helpers/settings.js';

const exec = promisify(execFile);
const tempDir = useTempDirs();
const sandbox = await machineSandbox();

describe('maker run: the overall check and the candidate allowances', () => {
  it.each([
    [['--allow-executable', '/usr/bin/x'], '--allow-executable'],
    [['--allow-symlink', '../out'], '--allow-symlink'],
    [['--allow-executable', '.git/hooks/*'], '--allow-executable'],
    [['--max-file-kb', '0'], '--max-file-kb'],
    [['--check', ''], '--check'],
  ])('refuses %j up front, creating nothing', async (flags, named) => {
    const dir = join(await tempDir(), 'repo');
    const out = await maker(['run', 'a tool', '--dir', dir, '--worker', 'sim', ...flags]);
    expect(out.code).toBe(2);
    expect(out.stderr).toContain(named);
    expect(existsSync(dir)).toBe(false);
  });

  it.runIf(sandbox !== undefined)(
    'keeps the allowances in the run and runs the check before the veto',
    async () => {
      const dir = await tempDir();
      const out = await simRun(dir, [
        '--allow-executable',
        'bin/*',
        '--allow-executable',
        'scripts/run.sh',
        '--allow-symlink',
        'link',
        '--allow-workflows',
        '--allow-install-files',
        '--max-file-kb',
        '2',
        '--check',
        'test -d src',
        // A tree of one level, without the subtasks' checks (the overall one still runs): what is
        // tested is the run's record and its overall check.
        '--no-checks',
        '--max-depth',
        '1',
        '--json',
      ]);
      expect(out.code, out.stderr).toBe(0);
      const state = JSON.parse(await readFile(join(dir, 'maker-state.json'), 'utf8')) as {
        runs: Record<
          string,
          {
            config: { allow: unknown; maxFileBytes: number };
            nodes: { root: { check?: string } };
            finalCheck?: { command: string; ok: boolean };
          }
        >;
      };
      const run = Object.values(state.runs)[0];
      expect(run?.config.allow).toEqual({
        executables: ['bin/*', 'scripts/run.sh'],
        symlinks: ['link'],
        workflows: true,
        installFiles: true,
      });
      expect(run?.config.maxFileBytes).toBe(2048);
      expect(run?.nodes.root.check).toBe('test -d src');
      expect(run?.finalCheck).toMatchObject({ command: 'test -d src', ok: true });
    },
  );

  it.runIf(sandbox !== undefined)(
    'a run with checks is not resumed where no sandbox works: refused up front, the run unchanged',
    async () => {
      const dir = await tempDir();
      const started = await maker([
        'run',
        'a tool',
        '--dir',
        dir,
        '--worker',
        'sim',
        '--hitl',
        'defer',
        '--check',
        'true',
        // A tree of one level, without the subtasks' checks: what is tested is the refusal to resume
        // it, which the overall check (`--check`, the one asked for by name) decides.
        '--no-checks',
        '--max-depth',
        '1',
      ]);
      expect(started.code, started.stderr).toBe(4);
      const before = await readFile(join(dir, 'maker-state.json'), 'utf8');
      // A PATH with git and a shell, but no bwrap.
      const bin = join(await tempDir(), 'bin');
      await mkdir(bin);
      for (const tool of ['git', 'sh'])
        await symlink(
          (await exec('sh', ['-c', `command -v ${tool}`])).stdout.trim(),
          join(bin, tool),
        );
      const resumed = await maker(['resume', '--dir', dir], { PATH: bin });
      expect(resumed.code).toBe(2);
      expect(resumed.stderr).toMatch(/bubblewrap|bwrap/);
      expect(resumed.stderr).toContain('The run was not changed.');
      expect(await readFile(join(dir, 'maker-state.json'), 'utf8')).toBe(before);
    },
  );

  it.runIf(sandbox !== undefined)(
    '--hitl auto lands nothing whose check fails: status failed-checks, exit 5',
    async () => {
      const dir = await tempDir();
      const out = await maker([
        'run',
        'a tool that prints hello',
        '--dir',
        dir,
        '--worker',
        'sim',
        '--hitl',
        'auto',
        '--check',
        'exit 1',
        // A tree of one level (its subtasks' checks still run): what is tested is the landing.
        '--max-depth',
        '1',
        '--json',
      ]);
      expect(out.code, out.stderr).toBe(5);
      const summary = JSON.parse(out.stdout) as {
        status: string;
        landed: boolean;
        error: string;
        checks: { failed: number; verified: boolean; ran: number };
      };
      expect(summary.status).toBe('failed-checks');
      expect(summary.landed).toBe(false);
      expect(summary.error).toMatch(/checks did not pass.*nothing landed.*`exit 1` FAILED/s);
      // The subtasks' checks ran by default (no flag), and only the overall one failed.
      expect(summary.checks.failed).toBe(1);
      expect(summary.checks.ran).toBeGreaterThan(1);
      expect(summary.checks.verified).toBe(false);
      const log = await exec('git', ['-C', dir, 'log', '--format=%s', 'main']);
      expect(log.stdout.trim().split('\n')).toHaveLength(1);
    },
    // A whole sim run with checks, acceptance tests and probes in the sandbox: about 80 s beside the suite.
    240_000,
  );

  it('without a sandbox, a run says so once, marks its result unverified, and --hitl auto lands nothing', async () => {
    const dir = await tempDir();
    // A PATH with git and a shell, but no bwrap.
    const bin = join(await tempDir(), 'bin');
    await mkdir(bin);
    for (const tool of ['git', 'sh'])
      await symlink(
        (await exec('sh', ['-c', `command -v ${tool}`])).stdout.trim(),
        join(bin, tool),
      );
    const out = await simRun(dir, ['--max-depth', '1'], { PATH: bin });
    expect(out.code, out.stderr).toBe(5);
    expect(out.stderr.match(/No sandbox works on this machine/g)).toHaveLength(1);
    expect(out.stdout).toMatch(/Checks: UNVERIFIED: no sandbox works on this machine/);
    expect(out.stdout).toMatch(
      /failed-checks[^]*Not landed: The result is unverified[^]*q-root-veto accept/,
    );
    const state = JSON.parse(await readFile(join(dir, 'maker-state.json'), 'utf8')) as {
      runs: Record<string, { sandbox: string | null; nodes: Record<string, { checks?: unknown }> }>;
    };
    const run = Object.values(state.runs)[0];
    expect(run?.sandbox).toBeNull();
    expect(Object.values(run?.nodes ?? {}).every((n) => n.checks === undefined)).toBe(true);
  }, 60_000);
});
