import { describe, expect, it } from 'vitest';
import { clause, escapeControls, sentences } from '../../src/core/text.js';
import { forTerminal } from '../../src/surfaces/cli/io.js';

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

describe('escapeControls and forTerminal', () => {
  it('shows every control character but line feed and tab as its escape', () => {
    expect(escapeControls('a\tb\nc')).toBe('a\tb\nc');
    expect(escapeControls('\x1b[2J\x07\r\x00\x7f\x9b\u0085é✓')).toBe(
      '\\u001b[2J\\u0007\\u000d\\u0000\\u007f\\u009b\\u0085é✓',
    );
  });

  it("lets only maker's own progress line begin a write by returning to the line's start and clearing it", () => {
    expect(forTerminal('\r\x1b[2Kmaker: 3/10 nodes done')).toBe('\r\x1b[2Kmaker: 3/10 nodes done');
    expect(forTerminal('\rbench 10/20')).toBe('\rbench 10/20');
    expect(forTerminal('\r\x1b[2Kmaker: "\x1b[2K\rfake"\n')).toBe(
      '\r\x1b[2Kmaker: "\\u001b[2K\\u000dfake"\n',
    );
    expect(forTerminal('title \r\x1b[2K')).toBe('title \\u000d\\u001b[2K');
  });
});
