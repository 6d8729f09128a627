import { describe, expect, it } from 'vitest';
import { renderSplit } from '../../src/core/view/split-text.js';
import type { SplitAnswer } from '../../src/engine/vote/parse.js';

const subtask = (acceptance: string[], check?: string) => ({
  title: 'Write the parser',
  description: 'Parse CSV rows.',
  acceptance,
  files: ['src/parse.ts'],
  dependsOn: [],
  ...(check === undefined ? {} : { check }),
});
const split = (acceptance: string[], check?: string): SplitAnswer => ({
  subtasks: [
    subtask(acceptance, check),
    { ...subtask([]), title: 'Write the CLI', dependsOn: [0] },
  ],
});

describe('how a decomposition is shown to judges, reviewers and people', () => {
  it('shows everything that makes two splits different votes: acceptance checks and check commands', () => {
    // These are different vote classes (their canonical JSON differs): a judge must be able to tell them apart.
    const a = renderSplit(split(['quoted fields are kept whole'], 'npm test -- parse'));
    const b = renderSplit(split(['rows are split on commas']));
    expect(a).not.toBe(b);
    expect(a).toContain('quoted fields are kept whole');
    expect(a).toContain('npm test -- parse');
  });
});
