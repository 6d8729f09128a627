import { describe, expect, it } from 'vitest';
import { runSchema, type Reopen } from '../../src/core/tree/schema.js';
import { keptOutput } from '../../src/engine/checks/checks.js';
import {
  MAX_REOPENS_PER_NODE,
  MAX_REOPENS_PER_RUN,
  mayReopen,
  reopenBound,
} from '../../src/engine/compose/reopen.js';
import { firstErrorLine, upstreamLeaves } from '../../src/engine/compose/trace.js';
import { node, runOf } from '../helpers/runs.js';

const reopen = (n: string): Reopen => ({
  node: n,
  trigger: { node: '1', kind: 'candidates', title: 'Task 1' },
  failures: 4,
  signature: "SyntaxError: Unexpected token 'export'",
  excluded: 'k'.repeat(64),
  at: '2026-01-01T00:00:00.000Z',
});

/** Root, a finished leaf 0, leaf 1 building on it, leaf 2 on nothing. */
function tree(fields: Parameters<typeof runOf>[1] = {}) {
  return runOf(
    [
      node('root', { kind: 'branch', status: 'composing' }),
      node('0', { kind: 'leaf', status: 'done', commit: 'c'.repeat(40), index: 0 }),
      node('1', { kind: 'leaf', status: 'sampling', index: 1, dependsOn: [0] }),
      node('2', { kind: 'leaf', status: 'sampling', index: 2 }),
    ],
    fields,
  );
}

describe('reopening is bounded and traced to what a node builds on', () => {
  it('suspects only the finished leaves a node builds on', () => {
    const run = tree();
    expect(upstreamLeaves({ run }, run.nodes['1']!).map((n) => n.id)).toEqual(['0']);
    expect(upstreamLeaves({ run }, run.nodes['2']!)).toEqual([]);
  });

  it('reopens a finished leaf at most twice, and a run at most eight times', () => {
    const run = tree();
    expect(mayReopen(run, run.nodes['0']!)).toBe(true);
    expect(mayReopen(run, run.nodes['1']!)).toBe(false); // not finished
    run.nodes['0']!.reopen = {
      count: MAX_REOPENS_PER_NODE,
      excluded: [],
      evidence: [],
      reasons: [],
    };
    expect(mayReopen(run, run.nodes['0']!)).toBe(false);
    const busy = tree({ reopens: Array.from({ length: MAX_REOPENS_PER_RUN }, () => reopen('2')) });
    expect(mayReopen(busy, busy.nodes['0']!)).toBe(false);
  });

  it('says why nothing is reopened when the bounds, not the lack of a suspect, stop it', () => {
    const run = tree();
    const suspects = [run.nodes['0']!];
    expect(reopenBound(run, [])).toBeUndefined();
    expect(reopenBound(run, suspects)).toBeUndefined(); // 0 may still be reopened
    run.nodes['0']!.reopen = {
      count: MAX_REOPENS_PER_NODE,
      excluded: [],
      evidence: [],
      reasons: [],
    };
    expect(reopenBound(run, suspects)).toBe(
      `MAKER reopens no earlier subtask for it: 0 (${run.nodes['0']!.title}) was reopened 2 times already, the bound per subtask; the failure may still be theirs.`,
    );
    const busy = tree({ reopens: Array.from({ length: MAX_REOPENS_PER_RUN }, () => reopen('2')) });
    expect(reopenBound(busy, [busy.nodes['0']!])).toBe(
      'MAKER reopens no earlier subtask for it: this run has made 8 reopenings, its bound.',
    );
  });

  it('state files with and without reopenings load', () => {
    const before = runSchema.parse(JSON.parse(JSON.stringify(tree())));
    expect(before.reopens).toBeUndefined();
    expect(before.nodes['0']?.reopen).toBeUndefined();
    const saved = tree({ reopens: [reopen('0')], reopening: reopen('0') });
    saved.nodes['0']!.reopen = { count: 1, excluded: [], evidence: [], reasons: [] };
    const raw = JSON.parse(JSON.stringify(saved)) as {
      nodes: Record<string, { reopen?: object }>;
    };
    raw.nodes['0']!.reopen = { count: 1 }; // lists absent: empty
    const after = runSchema.parse(raw);
    expect(after.reopens?.[0]?.signature).toMatch(/^SyntaxError/);
    expect(after.nodes['0']?.reopen).toEqual({ count: 1, excluded: [], evidence: [], reasons: [] });
    expect(() => runSchema.parse({ ...raw, reopens: [{ node: '0' }] })).toThrow();
  });

  it("keeps the line naming a check's error, however far before the tail it was printed", () => {
    const output = [
      '# file:///tmp/x/src/words.js:1',
      "# SyntaxError: Unexpected token 'export'",
      ...Array.from(
        { length: 60 },
        (_, i) => `#     at frame ${i} (node:internal/modules/cjs/loader)`,
      ),
      'not ok 1 - test/words.test.js',
      '# fail 1',
    ].join('\n');
    const kept = keptOutput(output);
    expect(kept.length).toBeLessThan(700);
    expect(kept.startsWith("# SyntaxError: Unexpected token 'export'\n…\n")).toBe(true);
    expect(firstErrorLine([{ tail: kept }])).toBe("SyntaxError: Unexpected token 'export'");
    expect(firstErrorLine([{ tail: 'not ok 1\n# fail 1' }])).toBe('fail 1');
  });
});
