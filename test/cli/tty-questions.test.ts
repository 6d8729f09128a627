import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { maker } from '../helpers/cli.js';
import { useTempDirs } from '../helpers/tmp.js';
import { hasScript, useTerminals } from '../helpers/terminal.js';

const tempDir = useTempDirs();
const terminal = useTerminals();
/** A small sim run (one level, no checks): its only question is the final veto. */
const SMALL = ['--worker', 'sim', '--max-depth', '1', '--no-checks', '--confidence', 'low'];
const VETO = /\? MAKER finished [^]*?Choose a number: /;

describe.skipIf(!hasScript)('questions at a terminal', () => {
  it(
    'Ctrl-C at the veto, then `maker resume` at a terminal asks the pending question again',
    { timeout: 60_000 },
    async () => {
      const dir = join(await tempDir(), 'repo');
      const first = terminal(['run', 'a todo app', '--dir', dir, ...SMALL]);
      await first.seen(VETO);
      first.type('\x03');
      await first.seen(/maker: interrupted|Cancelled \(interrupted\)/);
      expect(await first.exited).toBe(130);
      expect(first.screen()).not.toMatch(/Input ended before/);

      const resumed = terminal(['resume', '--dir', dir]);
      await resumed.seen(VETO, 20_000);
      resumed.type('1\r');
      await resumed.seen(/SIMULATED run r[\w-]+: done/);
      expect(await resumed.exited).toBe(0);
    },
  );

  it(
    'off a terminal, `maker resume` of a run that waited at one says where to answer, at once',
    { timeout: 60_000 },
    async () => {
      const dir = join(await tempDir(), 'repo');
      const first = terminal(['run', 'a todo app', '--dir', dir, ...SMALL]);
      await first.seen(VETO);
      first.type('\x03');
      expect(await first.exited).toBe(130);

      const resumed = await maker(['resume', '--dir', dir]);
      expect(resumed.stderr).not.toMatch(/unsettled top-level await/);
      expect(resumed.stdout).toMatch(/Waiting for answers:[^]*q-root-veto/);
      expect(resumed.stdout).toMatch(/maker answer --dir /);
      expect(resumed.code).toBe(4);
    },
  );

  it(
    'a resumed --hitl auto run at a terminal answers by itself: no prompt, nothing "answered elsewhere"',
    { timeout: 60_000 },
    async () => {
      const dir = join(await tempDir(), 'repo');
      // Ctrl-C a moment after the start (at its third save), before the final question.
      const first = await maker(['run', 'a todo app', '--dir', dir, ...SMALL, '--hitl', 'auto'], {
        MAKER_INTERRUPT_AT: 'state:log-appended@3',
      });
      expect(first.code, first.stderr).toBe(130);
      const resumed = terminal(['resume', '--dir', dir]);
      await resumed.seen(/SIMULATED run r[\w-]+: done/);
      expect(await resumed.exited).toBe(0);
      expect(resumed.screen()).toMatch(/answered automatically \(--hitl auto\)|q-root-veto/);
      expect(resumed.screen()).not.toMatch(/Choose a number|answered elsewhere/);
    },
  );

  it(
    'Ctrl-C at "Make it a git repository?" is an interruption (exit 130), not a bug',
    { timeout: 30_000 },
    async () => {
      const dir = await tempDir();
      await writeFile(join(dir, 'notes.txt'), 'mine\n');
      const t = terminal(['run', 'a todo app', '--dir', dir, ...SMALL]);
      await t.seen(/Make it a git repository\? \[y\/N\] /);
      t.type('\x03');
      expect(await t.exited).toBe(130);
      expect(t.screen()).toMatch(/maker: interrupted\./);
      expect(t.screen()).not.toMatch(/unexpected error|AbortError/);
    },
  );
});
