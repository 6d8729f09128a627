import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { normalizedPatchKey, parsePatch } from '../../src/core/patch.js';
import { fileStats } from '../../src/core/diffstat.js';
import {
  diffLineKinds,
  addedLines,
  applyHunks,
  newPathOf,
  oldPathOf,
  readUnifiedDiff,
  removedCount,
} from '../../src/core/unified-diff.js';
import { uniform } from '../../src/core/random.js';

/** A seeded stream of numbers in [0, 1). */
function stream(seed: number): () => number {
  let i = 0;
  return () => uniform(seed, i++);
}

describe('reading a unified diff', () => {
  it('reads a hunk by its counts: a "+++ x" or "--- x" line inside it is content', () => {
    const diff = [
      'diff --git a/notes.md b/notes.md',
      '--- a/notes.md',
      '+++ b/notes.md',
      '@@ -1,2 +1,2 @@',
      '--- old rule',
      '+++ new rule',
      ' kept',
      '',
    ].join('\n');
    const [section] = readUnifiedDiff(diff);
    expect(section).toBeDefined();
    expect(oldPathOf(section!)).toBe('notes.md');
    expect(newPathOf(section!)).toBe('notes.md');
    expect(addedLines(section!)).toEqual(['++ new rule']);
    expect(removedCount(section!)).toBe(1);
    expect(parsePatch(diff)).toEqual([
      { oldPath: 'notes.md', newPath: 'notes.md', added: ['++ new rule'], removed: 1 },
    ]);
  });

  it('splits a plain diff of two files into two sections', () => {
    const diff = '--- a/x\n+++ b/x\n@@ -1 +1 @@\n-1\n+2\n--- a/y\n+++ b/y\n@@ -0,0 +1 @@\n+3\n';
    expect(parsePatch(diff)).toEqual([
      { oldPath: 'x', newPath: 'x', added: ['2'], removed: 1 },
      { oldPath: 'y', newPath: 'y', added: ['3'], removed: 0 },
    ]);
  });

  it("undoes git's quoting, octal bytes included", () => {
    const diff =
      'diff --git "a/caf\\303\\251 \\"x\\".txt" "b/caf\\303\\251 \\"x\\".txt"\nnew file mode 100644\n--- /dev/null\n+++ "b/caf\\303\\251 \\"x\\".txt"\n@@ -0,0 +1 @@\n+hi\n';
    expect(parsePatch(diff)).toEqual([
      { oldPath: undefined, newPath: 'café "x".txt', added: ['hi'], removed: 0 },
    ]);
  });

  it("keeps lines past a hunk's counts as stray, and marks a hunk the text cuts short", () => {
    const [over] = readUnifiedDiff('--- a/x\n+++ b/x\n@@ -1 +1 @@\n-a\n+b\n+c\n');
    expect(over?.stray).toEqual(['+c']);
    expect(addedLines(over!)).toEqual(['b', 'c']);
    const [cut] = readUnifiedDiff('--- a/x\n+++ b/x\n@@ -1,3 +1,3 @@\n a\n-b\n+c\n');
    expect(cut?.hunks[0]?.short).toBe(true);
    expect(cut?.hunks[0]?.lines).toEqual([' a', '-b', '+c']);
  });

  it('is total: any text reads without throwing', () => {
    const random = stream(7);
    const atoms = [
      'diff --git a/x b/x',
      '--- a/x',
      '+++ b/x',
      '@@ -1,2 +1 @@',
      '+a',
      '-b',
      ' c',
      '\\ No newline at end of file',
      'GIT binary patch',
      'literal 3',
      'delta 9',
      '',
      'Binary files a/x and b/x differ',
      '"',
    ];
    for (let n = 0; n < 500; n++) {
      const text = Array.from(
        { length: 1 + Math.floor(random() * 12) },
        () => atoms[Math.floor(random() * atoms.length)],
      ).join('\n');
      expect(() => readUnifiedDiff(text)).not.toThrow();
      expect(() => parsePatch(text)).not.toThrow();
      expect(() => fileStats(text)).not.toThrow();
      expect(() => normalizedPatchKey(text)).not.toThrow();
    }
  });
});

/**
 * Against git itself: random files changed at random, `git diff` of the change read and applied,
 * must give git's result, and count the lines `git diff --numstat` counts.
 */
describe('agrees with git', () => {
  const dir = mkdtempSync(join(tmpdir(), 'maker-unified-diff-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));
  const git = (...args: string[]) =>
    execFileSync('git', ['-c', 'core.quotePath=true', ...args], { cwd: dir, encoding: 'utf8' });
  git('init', '-q', '--initial-branch=main');
  git('config', 'user.email', 't@example.com');
  git('config', 'user.name', 't');

  it('reads and applies 20 random changes as git does', () => {
    const random = stream(11);
    const word = () =>
      ['alpha', '--- x', '+++ y', '', 'beta', '@@ z', 'gamma'][Math.floor(random() * 7)]!;
    const names = ['a.txt', 'b c.txt', 'é.md', 'd/e.ts'];
    mkdirSync(join(dir, 'd'));
    let contents = new Map<string, string | undefined>();
    for (let round = 0; round < 20; round++) {
      const next = new Map(contents);
      for (const name of names) {
        const roll = random();
        if (roll < 0.15) next.set(name, undefined);
        else if (roll < 0.7) {
          const lines = Array.from({ length: Math.floor(random() * 8) }, word);
          next.set(name, lines.length === 0 ? '' : `${lines.join('\n')}\n`);
        }
      }
      for (const [name, text] of next) {
        if (text === undefined) rmSync(join(dir, name), { force: true });
        else writeFileSync(join(dir, name), text);
      }
      git('add', '-A');
      const diff = git('diff', '--cached', '-U1');
      for (const section of readUnifiedDiff(diff)) {
        const oldPath = oldPathOf(section);
        const newPath = newPathOf(section);
        const path = (newPath ?? oldPath)!;
        expect(names).toContain(path);
        const before =
          oldPath === undefined ? [] : (contents.get(oldPath) ?? '').split('\n').slice(0, -1);
        const after = applyHunks(before, section.hunks);
        const expected = next.get(path);
        if (newPath === undefined) expect(expected).toBeUndefined();
        else expect(after?.length === 0 ? '' : `${after?.join('\n')}\n`).toBe(expected);
      }
      const numstat = git('diff', '--cached', '--numstat').trim();
      const counted = fileStats(diff)
        .map((s) => `${s.added}\t${s.removed}`)
        .sort();
      expect(counted).toEqual(
        numstat === ''
          ? []
          : numstat
              .split('\n')
              .map((l) => l.split('\t').slice(0, 2).join('\t'))
              .sort(),
      );
      git('commit', '-q', '--allow-empty', '-m', `round ${round}`);
      contents = next;
    }
  });
});

describe('the kind of each line, for showing a diff', () => {
  // Proves: the live view marks a line by what the diff's structure says it is, so a removed SQL
  // comment (`-- note` → `--- note`) or an added `++ x` inside a hunk is content, not a header.
  it('reads content inside a hunk by its counts, and headers outside', () => {
    const diff = [
      'diff --git a/q.sql b/q.sql',
      'index 1111111..2222222 100644',
      '--- a/q.sql',
      '+++ b/q.sql',
      '@@ -1,3 +1,3 @@',
      ' select 1;',
      '--- note',
      '+++ x',
      ' end;',
      'diff --git a/b.txt b/b.txt',
      '--- a/b.txt',
      '+++ b/b.txt',
      '@@ -1 +1 @@',
      '-old',
      '+new',
      '',
    ].join('\n');
    expect(diffLineKinds(diff)).toEqual([
      'file',
      'ctx',
      'file',
      'file',
      'hunk',
      'ctx',
      'del',
      'add',
      'ctx',
      'file',
      'file',
      'file',
      'hunk',
      'del',
      'add',
      'ctx',
    ]);
  });
});
