import { existsSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { systemErrorMessage } from '../../src/app/system-errors.js';
import { maker } from '../helpers/cli.js';

/** What the machine refuses is said as what to do, never as a raw errno line. */
const errno = (code: string, syscall: string, path: string): NodeJS.ErrnoException =>
  Object.assign(new Error(`${code}: raw, ${syscall} '${path}'`), { code, syscall, path });

describe('system errors, said as what to do', () => {
  // Failed at main: the module did not exist, and the CLI printed the raw "EACCES: permission denied, …".
  it.each([
    [
      'EACCES',
      'open',
      /Permission denied \(open \/r\/maker-state\.json\): give your user write access/,
    ],
    ['EROFS', 'mkdir', /file system is read-only .* choose a writable directory/],
    ['ENOSPC', 'write', /disk is full .* free some space, then maker resume/],
    ['EDQUOT', 'write', /quota is used up .* then maker resume/],
    ['EMFILE', 'open', /Too many files are open .*ulimit -n/],
  ])('%s', (code, syscall, says) => {
    const text = systemErrorMessage(errno(code, syscall, '/r/maker-state.json'), 'maker resume');
    expect(text).toMatch(says);
    expect(text).toContain('Nothing was lost');
    expect(text).not.toContain('raw');
  });

  it.skipIf(!existsSync('/sys/kernel'))(
    'the CLI on a directory it may not create says what to do, exit 1',
    async () => {
      const result = await maker([
        'run',
        'x',
        '--worker',
        'sim',
        '--no-checks',
        '--dir',
        '/sys/maker-no/app',
      ]);
      expect(result.code).toBe(1);
      expect(result.stderr).toMatch(
        /^maker: (The operation was not permitted|Permission denied|The file system is read-only) \(mkdir \/sys\/maker-no/,
      );
      expect(result.stderr).toContain('choose');
    },
  );
});
