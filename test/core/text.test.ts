import { describe, expect, it } from 'vitest';
import { clause, sentences } from '../../src/core/text.js';

describe('sentences', () => {
  it.each([
    [['Request is not valid.', 'Check the key.'], 'Request is not valid. Check the key.'],
    [['Request is not valid', 'Check the key'], 'Request is not valid. Check the key.'],
    [['Try again later.', 'The run stops'], 'Try again later. The run stops.'],
    [['Why?', '', undefined, 'Because!'], 'Why? Because!'],
    [['He said "stop."', 'Then it stopped.'], 'He said "stop." Then it stopped.'],
    [['  padded.  ', 'next'], 'padded. next.'],
  ])('%j → %s', (parts, joined) => {
    expect(sentences(...parts)).toBe(joined);
    expect(sentences(...parts)).not.toMatch(/\.\.|\. \./);
  });

  it('clause drops the terminal mark so a sentence can go on', () => {
    expect(clause('The environment could not be set up.')).toBe(
      'The environment could not be set up',
    );
    expect(clause('no mark')).toBe('no mark');
  });
});
