import { execFileSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { editSizes, oversized, patchSizes } from '../../src/core/candidate-sizes.js';
import { useTempDirs } from '../helpers/tmp.js';

/**
 * A candidate's file sizes, read from the worker's text before anything is written: each bound is
 * checked against the size git gives the file once the patch is applied (never above it; exact for
 * whole files and binary patches).
 */
const tempDir = useTempDirs();
const git = (dir: string, ...args: string[]) =>
  execFileSync('git', args, { cwd: dir, encoding: 'utf8', maxBuffer: 1 << 28 });

/** `git diff --binary` from `before` to `after` (path → content), and each file's size after. */
async function diffOf(
  before: Record<string, Buffer | string>,
  after: Record<string, Buffer | string>,
): Promise<{ patch: string; sizes: Map<string, number> }> {
  const dir = await tempDir();
  git(dir, 'init', '-q', '-b', 'main');
  for (const [path, content] of Object.entries(before)) await writeFile(join(dir, path), content);
  git(dir, 'add', '-A');
  git(dir, '-c', 'user.name=p', '-c', 'user.email=p@x', 'commit', '-q', '--allow-empty', '-m', 'a');
  for (const [path, content] of Object.entries(after)) await writeFile(join(dir, path), content);
  git(dir, 'add', '-A');
  const patch = git(dir, 'diff', '--cached', '--binary');
  const sizes = new Map(
    Object.entries(after).map(([path, content]) => [path, Buffer.byteLength(content)]),
  );
  return { patch, sizes };
}

const lines = (n: number, word = 'line') =>
  Array.from({ length: n }, (_, i) => `${word} ${i}`).join('\n');
const noise = randomBytes(3000);
const grown = Buffer.concat(Array.from({ length: 400 }, () => noise)); // 1.2 MB, a delta of a few bytes

const CASES: [
  string,
  Record<string, Buffer | string>,
  Record<string, Buffer | string>,
  'exact' | 'bound',
][] = [
  ['a new text file', {}, { 'a.txt': `${lines(100)}\n` }, 'exact'],
  ['a new file without a final newline', {}, { 'a.txt': lines(100) }, 'exact'],
  ['a line "++ x" added (looks like a header)', {}, { 'a.txt': '++ x\n--- y\nz\n' }, 'exact'],
  [
    'a change in a longer file',
    { 'a.txt': `${lines(500)}\n` },
    { 'a.txt': `${lines(501, 'x')}\n` },
    'bound',
  ],
  [
    'a new binary file (literal)',
    {},
    { 'b.bin': Buffer.concat([Buffer.from([0]), noise]) },
    'exact',
  ],
  [
    'a binary file grown by a delta',
    { 'b.bin': Buffer.concat([Buffer.from([0]), noise]) },
    { 'b.bin': Buffer.concat([Buffer.from([0]), grown]) },
    'exact',
  ],
  [
    'two files, one text one binary',
    {},
    { 'a.txt': 'hello\n', 'b.bin': Buffer.concat([Buffer.from([0]), noise]) },
    'exact',
  ],
];

describe('a candidate file sizes before it is built', () => {
  it.each(CASES)('reads %s from the patch', async (_name, before, after, kind) => {
    const { patch, sizes } = await diffOf(before, after);
    const found = new Map(patchSizes(patch).map((s) => [s.path, s.bytes]));
    for (const [path, size] of sizes) {
      if (kind === 'exact') expect(found.get(path)).toBe(size);
      else {
        expect(found.get(path)).toBeGreaterThan(0);
        expect(found.get(path)).toBeLessThanOrEqual(size);
      }
    }
  });

  it('finds the files over a limit, in edits and patches alike', async () => {
    const big = 'x'.repeat(2_000_000);
    expect(
      oversized(
        editSizes([
          { path: 'a', content: big },
          { path: 'b', content: null },
        ]),
        1_000_000,
      ),
    ).toEqual([{ path: 'a', bytes: 2_000_000 }]);
    const { patch } = await diffOf({}, { 'big.txt': `${big}\n`, 'small.txt': 'x\n' });
    expect(oversized(patchSizes(patch), 1_000_000).map((s) => s.path)).toEqual(['big.txt']);
    const binary = await diffOf(
      { 'b.bin': Buffer.concat([Buffer.from([0]), noise]) },
      {
        'b.bin': Buffer.concat([Buffer.from([0]), grown]),
      },
    );
    expect(oversized(patchSizes(binary.patch), 1_000_000).map((s) => s.path)).toEqual(['b.bin']);
  });
});
