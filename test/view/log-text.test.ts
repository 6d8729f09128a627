import { describe, expect, it } from 'vitest';
import type { EngineEvent, EngineEventInput } from '../../src/engine/events.js';
import { logText } from '../../src/surfaces/view/log-text.js';

type Of<T extends EngineEvent['type']> = Extract<EngineEventInput, { type: T }>;

/** One event of every kind the engine reports: the typecheck fails when a kind is missing here. */
const EVERY: { readonly [T in EngineEvent['type']]: Of<T> } = {
  'run-start': { type: 'run-start', idea: 'a todo app', resumed: false },
  'node-start': { type: 'node-start', nodeId: '0', title: 'Core logic' },
  'node-minimal': { type: 'node-minimal', nodeId: '0', minimal: true },
  'node-split': { type: 'node-split', nodeId: 'root', children: ['0', '1'] },
  'vote-start': { type: 'vote-start', nodeId: '0', vote: 'patch' },
  'sample-drawn': {
    type: 'sample-drawn',
    nodeId: '0',
    vote: 'patch',
    slot: 1,
    key: 'a'.repeat(40),
  },
  'sample-flagged': {
    type: 'sample-flagged',
    nodeId: '0',
    vote: 'patch',
    slot: 2,
    flags: [{ rule: 'empty-patch', message: 'no change' }],
  },
  'vote-end': {
    type: 'vote-end',
    nodeId: '0',
    vote: 'patch',
    status: 'decided',
    votes: 2,
    runnerUpVotes: 0,
  },
  'vote-k-raised': {
    type: 'vote-k-raised',
    nodeId: '0',
    vote: 'patch',
    from: 2,
    to: 3,
    reason: 'contested 3 : 1, ahead by exactly k = 2',
  },
  'vote-k-stood': { type: 'vote-k-stood', nodeId: '0', vote: 'patch', k: 3, stoodAt: 2 },
  'vote-text-chosen': {
    type: 'vote-text-chosen',
    nodeId: '0',
    vote: 'patch',
    texts: 2,
    slot: 1,
    by: 'ballots',
  },
  'not-reopened': {
    type: 'not-reopened',
    nodeId: '1',
    reason: 'MAKER reopens no earlier subtask for it: this run has made 8 reopenings, its bound.',
  },
  'commit-end': { type: 'commit-end', nodeId: '0', branch: 'maker/r/n-0', commit: 'b'.repeat(40) },
  'merge-end': { type: 'merge-end', nodeId: 'root', child: '0', commit: 'c'.repeat(40) },
  'merge-conflict': { type: 'merge-conflict', nodeId: 'root', child: '1', conflicts: ['a.ts'] },
  'context-built': { type: 'context-built', nodeId: '0', chars: 900, budget: 1000, omitted: 0 },
  'checks-end': { type: 'checks-end', nodeId: 'root', ran: 3, failed: 1 },
  'merge-checks-failed': {
    type: 'merge-checks-failed',
    nodeId: 'root',
    child: '1',
    commands: ['npm test'],
  },
  'acceptance-test': {
    type: 'acceptance-test',
    nodeId: '1',
    status: 'discarded',
    reason:
      'Acceptance test test/a.test.js discarded: it passes without the code, so it proves nothing.',
  },
  probe: {
    type: 'probe',
    nodeId: '1',
    status: 'kept',
    reason: 'Probe src/look.mjs (`node src/look.mjs`): voted from the criteria.',
  },
  'behaviour-pooled': { type: 'behaviour-pooled', nodeId: '1', texts: 3, behaviours: 1, byText: 0 },
  'node-reopened': {
    type: 'node-reopened',
    nodeId: '0',
    trigger: 'candidates-failed',
    reason: 'reopened 0 (Set up the package) because all 8 candidates of 1 failed their check',
  },
  'checks-unavailable': { type: 'checks-unavailable', reason: 'No sandbox works on this machine.' },
  'question-asked': {
    type: 'question-asked',
    question: {
      id: 'q-root-veto',
      nodeId: 'root',
      kind: 'veto',
      prompt: 'Land it on main?',
      options: [{ id: 'accept', label: 'Accept' }],
      allowText: false,
      createdAt: '2026-01-01T00:00:00.000Z',
    },
  },
  'question-answered': { type: 'question-answered', questionId: 'q-root-veto', answer: 'accept' },
  'wait-start': {
    type: 'wait-start',
    waitId: 'jules-1',
    service: 'jules',
    reason: '429',
    until: '2026-01-01T00:01:00.000Z',
  },
  'wait-end': { type: 'wait-end', waitId: 'jules-1', service: 'jules' },
  'pull-request': {
    type: 'pull-request',
    number: 1,
    url: 'http://127.0.0.1:1/a/b/pull/1',
    state: 'open',
  },
  'run-end': { type: 'run-end', status: 'done' },
};

describe('the activity log’s words', () => {
  it.each(Object.values(EVERY))('tells $type as a sentence, not by its name', (event) => {
    const text = logText({ ...event, seq: 1, runId: 'r', at: '2026-01-01T00:00:00.000Z' });
    expect(text).not.toBe('');
    expect(text).not.toContain(event.type);
  });

  it('tells the checks that ran on a result, and a question by its id and kind', () => {
    expect(logText(EVERY['checks-end'])).toBe('checks on its result: 1 of 3 failed');
    expect(logText(EVERY['question-asked'])).toBe('asks you (q-root-veto, veto): Land it on main?');
    expect(logText(EVERY['vote-k-raised'])).toBe(
      'candidate changes: a narrow win, k raised 2 → 3 (contested 3 : 1, ahead by exactly k = 2)',
    );
    expect(logText(EVERY['not-reopened'])).toBe(
      'a failure not traced: MAKER reopens no earlier subtask for it: this run has made 8 reopenings, its bound.',
    );
    expect(logText(EVERY['vote-k-stood'])).toBe(
      'candidate changes: did not settle at k = 3; the decision at k = 2 stands',
    );
    expect(logText(EVERY['vote-text-chosen'])).toBe(
      "candidate changes: the winning behaviour has 2 texts; sample #1 lands, by the judges' ballots",
    );
    expect(logText({ ...EVERY['vote-end'], votes: 4, runnerUpVotes: 1, k: 3 })).toBe(
      'candidate changes decided (4 : 1 sample votes, at k = 3)',
    );
    expect(logText({ type: 'run-end', status: 'awaiting-human' })).toBe(
      'Run ended: waiting for answers',
    );
  });
});
