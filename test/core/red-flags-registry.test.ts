import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import type {
  CandidatePolicy,
  TreeChange,
  WrittenContent,
} from '../../src/core/candidate-policy.js';
import { LIMITS } from '../../src/core/limits.js';
import {
  contentInput,
  RED_FLAG_RULES,
  RED_FLAG_SCOPES,
  rulesOf,
  treeInput,
  type AnyFlagRule,
} from '../../src/core/red-flags/index.js';

const POLICY: CandidatePolicy = { scope: [], maxFileBytes: 1000 };
const added = (path: string, more: Partial<TreeChange> = {}): TreeChange => ({
  path,
  status: 'added',
  newMode: '100644',
  ...more,
});
const tree = (changes: TreeChange[], policy = POLICY, symlinks = new Set<string>()) =>
  treeInput(changes, policy, symlinks);
const wrote = (path: string, after: string, before?: string): WrittenContent => ({
  path,
  after: Buffer.from(after),
  ...(before === undefined ? {} : { before: Buffer.from(before) }),
});
const content = (files: WrittenContent[], wholeFiles = false) =>
  contentInput(files, [], wholeFiles);
const output = (o: object) => ({ output: o, maxFileBytes: 1000 });
const schema = z.object({ a: z.string() });
const test = (path: string, body: string, command: string) => ({
  kind: 'test',
  program: { path, content: body, command },
  scope: [],
});
const probe = (path: string, body: string, command: string) => ({
  kind: 'probe',
  program: { path, content: body, command },
  scope: [],
});
/** A rule's check on an input of the table (each rule's input type is its own). */
const fire = (rule: AnyFlagRule | undefined, input: unknown) =>
  (rule?.check as unknown as (input: unknown) => readonly { rule: string; message: string }[])(
    input,
  );
const review = { ok: true, value: { verdict: 'suspect', confidence: 0.9, reason: 'off-task' } };

/** For every rule, an input its check fires on. A rule without one fails the test below. */
const FIRES: Record<string, unknown> = {
  truncated: { response: { text: '', finishReason: 'length' } },
  'token-cap': { response: { text: '', outputTokens: 11 }, maxTokens: 10 },
  'abnormal-stop': { response: { text: '', finishReason: 'safety' } },
  parse: { response: { text: '{"a": ' }, schema },
  schema: { response: { text: '{"a": 1}' }, schema },
  'ballot-choice': { choice: 'Z', options: ['A', 'B'] },
  format: { malformed: 'no move line' },
  'needs-files': output({ ok: false, reason: 'needs src/b.ts', needsFiles: ['src/b.ts'] }),
  'session-stuck': output({ ok: false, reason: 'stuck', rule: 'session-stuck' }),
  'worker-failed': output({ ok: false, reason: 'the worker failed' }),
  'duplicate-path': output({
    ok: true,
    edits: [
      { path: 'src/a.ts', content: '1' },
      { path: './src/a.ts', content: '2' },
    ],
  }),
  'does-not-apply': { stage: 'apply', reason: 'patch failed: src/a.ts:1' },
  'tree-build-failed': { stage: 'build', reason: 'git refused' },
  'missing-check': { unchecked: ['Write the parser'] },
  'not-a-test-file': test('src/a.ts', 'x', 'node src/a.ts'),
  'oversized-test': test('test/a.test.ts', 'x'.repeat(30_000), 'npx vitest run test/a.test.ts'),
  'test-not-run': test('test/a.test.ts', 'x', 'npm run build'),
  'oversized-probe': probe('probe.py', 'x'.repeat(30_000), 'python probe.py'),
  'probe-not-run': probe('probe.py', 'print(1)', 'python other.py'),
  'empty-patch': tree([]),
  'unsafe-path': tree([added('../outside')]),
  'maker-file': tree([added('maker-state.json')]),
  submodule: tree([added('lib', { newMode: '160000' })]),
  symlink: tree([added('link', { newMode: '120000' })]),
  executable: tree([added('run.sh', { newMode: '100755' })]),
  'through-symlink': tree([added('link/x.ts')], POLICY, new Set(['link'])),
  'ci-workflow': tree([added('.github/workflows/ci.yml')]),
  'install-files': tree([added('.npmrc')]),
  'too-many-files': tree(
    Array.from({ length: LIMITS.candidateFiles + 1 }, (_, i) => added(`src/f${i}.ts`)),
  ),
  'oversized-file': tree([added('big.bin', { newSize: 1001 })]),
  'out-of-scope': tree([added('docs/x.md')], { ...POLICY, scope: ['src/'] }),
  secret: content([wrote('src/a.ts', `const t = "ghp_${'a'.repeat(36)}";\n`)]),
  'redacted-text': content([wrote('src/a.ts', 'const k = "[REDACTED:api-key]";\n')]),
  'conflict-markers': content([wrote('src/a.ts', '<<<<<<< ours\na\n=======\nb\n>>>>>>> theirs\n')]),
  'does-not-parse': content([wrote('package.json', '{\n  "name": \n')]),
  'over-escaped': content([wrote('src/c.py', 'import sys\\n\\ndef main():\\n    print(1)\\n')]),
  'omission-marker': content(
    [wrote('src/a.ts', 'export const a = 2;\n// ... rest unchanged\n', 'export const a = 1;\n')],
    true,
  ),
  oversized: {
    patch: 'diff --git a/a b/a\n--- a/a\n+++ b/a\n@@ -1,2 +1,2 @@\n-x\n-y\n+z\n+w\n',
    maxChangedLines: 3,
  },
  'check-failed': { command: 'npm test', ok: false, excerpt: '1 failing' },
  'acceptance-test-failed': { command: 'npx vitest run t.test.ts', ok: false, excerpt: 'fail' },
  'llm-review': { review, subject: 'change' },
  'reopened-result': { why: 'the final check failed', excluded: true },
  'reopen-evidence': {
    why: 'the final check failed',
    stillFails: { command: 'npm test', output: 'still failing' },
  },
};

describe('the red-flag registry', () => {
  it('has unique ids, valid scopes and a description for every rule', () => {
    const ids = RED_FLAG_RULES.map((r) => r.id);
    expect(new Set(ids).size).toBe(ids.length);
    for (const rule of RED_FLAG_RULES) {
      expect(RED_FLAG_SCOPES).toContain(rule.scope);
      expect(rule.description.length, rule.id).toBeGreaterThan(10);
      expect(rule.id).toMatch(/^[a-z]+(?:-[a-z]+)*$/);
    }
    expect(RED_FLAG_SCOPES.flatMap((s) => rulesOf(s)).length).toBe(RED_FLAG_RULES.length);
  });

  it('has a firing case for every rule, and none for a rule it does not have', () => {
    expect(Object.keys(FIRES).sort()).toEqual(RED_FLAG_RULES.map((r) => r.id).sort());
  });

  it.each(RED_FLAG_RULES.map((r) => [r.id, r] as const))(
    'fires %s, and every flag it raises carries its id',
    (id, rule) => {
      const flags = fire(rule, FIRES[id]);
      expect(flags.length, id).toBeGreaterThan(0);
      for (const flag of flags) {
        expect(flag.rule).toBe(id);
        expect(flag.message.length).toBeGreaterThan(0);
      }
    },
  );

  it('keeps the words state files and tests depend on', () => {
    const check = (id: string) =>
      fire(
        RED_FLAG_RULES.find((r) => r.id === id),
        FIRES[id],
      );
    expect(check('truncated')[0]?.message).toBe('The response stopped at the output-token cap.');
    expect(check('empty-patch')[0]?.message).toBe('The candidate changes nothing.');
    expect(check('llm-review')[0]?.message).toBe('Review: off-task');
    expect(check('ballot-choice')[0]?.message).toBe('The judge chose "Z", which is not an option.');
  });
});
