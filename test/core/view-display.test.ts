import { describe, expect, it } from 'vitest';
import {
  displayStatus,
  flagCounts,
  outcomeText,
  tallyText,
  waitingNodes,
} from '../../src/core/view/display.js';
import type { TreeNode, VoteRecord } from '../../src/core/tree/schema.js';
import { flagged, node, record, runOf, started, valid } from '../helpers/runs.js';

const decided = (votes: number, runnerUp: number, key = 'a') => ({
  status: 'decided' as const,
  key,
  votes,
  runnerUpVotes: runnerUp,
  draws: votes + runnerUp,
  flagged: 0,
});

describe('how a node looks', () => {
  const cases: [string, Partial<TreeNode>, { run?: 'failed'; asked?: boolean }, string][] = [
    ['not started', { status: 'pending' }, {}, 'pending'],
    [
      'deciding whether it is minimal',
      { status: 'deciding', minimal: record([valid(0, 'yes')]) },
      {},
      'splitting',
    ],
    ['splitting', { status: 'splitting', split: record([started(0)]) }, {}, 'splitting'],
    [
      'drawing candidates',
      { status: 'sampling', leaf: record([valid(0, 'a'), started(1)]) },
      {},
      'sampling',
    ],
    [
      'redrawing after a red flag',
      { status: 'sampling', leaf: record([valid(0, 'a'), flagged(1, 'parse'), started(2)]) },
      {},
      'flagged',
    ],
    [
      'judges voting',
      {
        status: 'sampling',
        leaf: record([valid(0, 'a'), valid(1, 'b')], { ballots: [valid(0, 'a')] }),
      },
      {},
      'voting',
    ],
    ['merging its children', { status: 'composing' }, {}, 'composing'],
    ['asked about', { status: 'sampling' }, { asked: true }, 'waiting'],
    ['done but its veto pending', { status: 'done' }, { asked: true }, 'waiting'],
    ['done', { status: 'done' }, {}, 'done'],
    ['in a failed run', { status: 'sampling' }, { run: 'failed' }, 'stopped'],
  ];
  it.each(cases)('%s', (_name, fields, context, expected) => {
    const n = node('0', fields);
    const run = runOf([node('root'), n], {
      ...(context.run === undefined ? {} : { status: context.run }),
      questions: context.asked
        ? [
            {
              id: 'q',
              nodeId: '0',
              kind: 'select',
              prompt: '?',
              options: [],
              allowText: false,
              createdAt: '',
            },
          ]
        : [],
    });
    expect(displayStatus(run, run.nodes['0'] as TreeNode, waitingNodes(run))).toBe(expected);
  });
});

describe('a vote in words', () => {
  const cases: [string, VoteRecord, string | null, RegExp][] = [
    [
      'decided outright',
      record([valid(0, 'a'), valid(1, 'a'), valid(2, 'a')], { outcome: decided(3, 0) }),
      '3 : 0',
      /won 3 : 0 sample votes, ahead by k = 2/,
    ],
    [
      'decided by judges',
      record([valid(0, 'a'), valid(1, 'b'), flagged(2, 'parse'), valid(3, 'c')], {
        ballots: [
          valid(0, 'a'),
          valid(1, 'a'),
          valid(2, 'a'),
          valid(3, 'a'),
          valid(4, 'b'),
          valid(5, 'b'),
        ],
        outcome: decided(4, 2),
      }),
      '1 : 1; ballots 4 : 2',
      /disagreed \(1 : 1 sample votes\); judges chose it 4 : 2 in 6 ballots.*4 samples drawn, 1 red-flagged/,
    ],
    [
      // The outcome of an undecided ballot held the samples' 2 with the ballots' 5 ("2 : 5").
      'chosen by a person after judges tied',
      record([valid(0, 'a'), valid(1, 'a'), valid(2, 'b')], {
        ballots: [0, 1, 2, 3, 4, 5, 6, 7, 8, 9].map((i) => valid(i, i % 2 === 0 ? 'a' : 'b')),
        outcome: { ...decided(2, 5), status: 'human' },
      }),
      'chosen by a person (2 : 1; ballots 5 : 5)',
      /A person chose it after the vote did not settle \(2 : 1 sample votes; judges' ballots tied 5 : 5;/,
    ],
    [
      'chosen by a person',
      record([valid(0, 'a'), valid(1, 'b')], { outcome: { ...decided(1, 1), status: 'human' } }),
      'chosen by a person (1 : 1)',
      /A person chose it/,
    ],
    [
      'under way',
      record([valid(0, 'a'), valid(1, 'a'), valid(2, 'b'), started(3)]),
      '2 : 1',
      /In progress: 3 samples drawn, 0 red-flagged/,
    ],
    ['nothing valid yet', record([flagged(0, 'parse')]), null, /In progress/],
  ];
  it.each(cases)('%s', (_name, r, tally, why) => {
    expect(tallyText(r)).toBe(tally);
    expect(outcomeText(r, 2)).toMatch(why);
  });

  it('counts red flags by rule over every vote of a node', () => {
    const n = node('0', {
      minimal: record([flagged(0, 'truncated')]),
      leaf: record([flagged(0, 'parse', 'schema'), flagged(1, 'parse')], {
        ballots: [flagged(0, 'ballot-choice')],
      }),
    });
    expect(flagCounts(n)).toEqual({ 'ballot-choice': 1, parse: 2, schema: 1, truncated: 1 });
  });
});
