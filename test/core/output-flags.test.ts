import { describe, expect, it } from 'vitest';
import { LIMITS } from '../../src/core/limits.js';
import { outputFlags } from '../../src/core/red-flags/output-rules.js';

const over = LIMITS.candidateFiles + 1;
const rules = (patch: string) =>
  outputFlags({ output: { ok: true, patch }, maxFileBytes: 1_000_000 }).map((f) => f.rule);

describe('outputFlags counts a patch’s files as git reads them', () => {
  it('flags too many files before anything is written, with or without `diff --git` headers', () => {
    // Proves: the early count (before a tree is built from the patch) reads sections, so a plain
    // diff, which `git apply` takes, cannot slip past it. Failed at main: it counted 0 files.
    const added = (header: (p: string) => string) =>
      Array.from({ length: over }, (_, i) => `${header(`f${i}.ts`)}@@ -0,0 +1 @@\n+x\n`).join('');
    const git = added(
      (p) => `diff --git a/${p} b/${p}\nnew file mode 100644\n--- /dev/null\n+++ b/${p}\n`,
    );
    const plain = added((p) => `--- /dev/null\n+++ b/${p}\n`);
    expect(rules(git)).toEqual(['too-many-files']);
    expect(rules(plain)).toEqual(['too-many-files']);
    // A `diff --git` line inside a hunk's content is not a file.
    const one = `--- /dev/null\n+++ b/a.md\n@@ -0,0 +1,2 @@\n+diff --git a/x b/x\n+y\n`;
    expect(rules(one)).toEqual([]);
  });
});
