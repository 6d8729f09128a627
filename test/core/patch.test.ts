import { describe, expect, it } from 'vitest';
import { normalizedPatchKey, parsePatch, patchRedFlags } from '../../src/core/patch.js';
import { inScope, unsafePathReason } from '../../src/core/paths.js';

const addFile = (path: string, lines: string[]) =>
  `diff --git a/${path} b/${path}\nnew file mode 100644\nindex 0000000..e69de29\n--- /dev/null\n+++ b/${path}\n@@ -0,0 +1,${lines.length} @@\n${lines.map((l) => `+${l}`).join('\n')}\n`;

describe('patches', () => {
  it('parses created, modified and deleted files', () => {
    const patch =
      addFile('src/a.ts', ['export const a = 1;']) +
      'diff --git a/README.md b/README.md\nindex 1..2 100644\n--- a/README.md\n+++ b/README.md\n@@ -1 +1 @@\n-old\n+new\n' +
      'diff --git a/gone.txt b/gone.txt\ndeleted file mode 100644\n--- a/gone.txt\n+++ /dev/null\n@@ -1 +0,0 @@\n-bye\n';
    expect(parsePatch(patch)).toEqual([
      { oldPath: undefined, newPath: 'src/a.ts', added: ['export const a = 1;'], removed: 0 },
      { oldPath: 'README.md', newPath: 'README.md', added: ['new'], removed: 1 },
      { oldPath: 'gone.txt', newPath: undefined, added: [], removed: 1 },
    ]);
  });

  it.each([
    ['/etc/passwd', /absolute/],
    ['../outside.txt', /climbs out/],
    ['src/../../x', /climbs out/],
    ['.git/hooks/pre-commit', /inside \.git/],
    ['sub/.GIT/config', /inside \.git/],
    ['.git./config', /inside \.git/],
    ['GIT~1/config', /inside \.git/],
    ['a\nb', /control/],
    ['evil\u202etxt.exe', /bidirectional/],
    ['./a.ts', /canonical/],
  ])('refuses %s', (path, reason) => {
    expect(unsafePathReason(path)).toMatch(reason);
  });

  it('matches scope exactly, by directory and by glob', () => {
    expect(inScope('src/a.ts', ['src/a.ts'])).toBe(true);
    expect(inScope('src/deep/a.ts', ['src'])).toBe(true);
    expect(inScope('srcx/a.ts', ['src'])).toBe(false);
    expect(inScope('src/a.test.ts', ['src/*.test.ts'])).toBe(true);
    expect(inScope('src/x/a.test.ts', ['src/*.test.ts'])).toBe(false);
    expect(inScope('src/x/a.test.ts', ['src/**/*.test.ts'])).toBe(true);
    expect(inScope('src/a.test.ts', ['src/**/*.test.ts'])).toBe(true);
  });

  it('flags an empty patch, and one over the changed-line limit', () => {
    expect(patchRedFlags('')).toEqual([
      { rule: 'empty-patch', message: 'The candidate changes nothing.' },
    ]);
    expect(patchRedFlags(addFile('lib/b.ts', ['a', 'b', 'c']), { maxChangedLines: 2 })).toEqual([
      expect.objectContaining({ rule: 'oversized' }),
    ]);
    expect(patchRedFlags(addFile('src/ok.ts', ['fine']), { maxChangedLines: 5 })).toEqual([]);
  });

  it('keys patches by content, not layout', () => {
    const a = addFile('x.txt', ['one  ']) + addFile('y.txt', ['two']);
    const b =
      addFile('y.txt', ['two']).replace('index 0000000..e69de29', 'index 1111111..2222222') +
      addFile('x.txt', ['one']);
    expect(normalizedPatchKey(a)).toBe(normalizedPatchKey(b));
    expect(normalizedPatchKey(a)).not.toBe(
      normalizedPatchKey(addFile('x.txt', ['uno']) + addFile('y.txt', ['two'])),
    );
  });
});
