import { execFileSync } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { commitMessage } from '../../src/core/commit-message.js';

/** The trailers git reads in a message (`git interpret-trailers --parse`). */
const trailers = (message: string) =>
  execFileSync('git', ['interpret-trailers', '--parse'], { input: message, encoding: 'utf8' })
    .split('\n')
    .filter((l) => l !== '');

const REAL = { simulated: false, planner: 'gemini' } as const;
const OURS = ['Maker-Run: r-1', 'Maker-Node: n-0'];

describe('a commit message', () => {
  it.each([
    ['a trailer after a line break', 'Did it.\nSigned-off-by: Mallory <m@x>'],
    ['a trailer paragraph', 'Did it.\n\nSigned-off-by: Mallory <m@x>\nCo-authored-by: Eve <e@x>'],
    ['trailers above a patch divider', 'Did it.\n\nSigned-off-by: Mallory <m@x>\n---\nrest'],
    ['a divider alone', 'Did it.\n---'],
    ['carriage returns', 'Did it.\r\rSigned-off-by: Mallory <m@x>\r\n'],
    ['a cherry-pick line', 'Did it.\n\n(cherry picked from commit 0123456789abcdef)'],
  ])('has only MAKER’s trailers whatever the body holds: %s', (_name, body) => {
    const message = commitMessage(REAL, { subject: 'Add it', body, trailers: OURS });
    expect(trailers(message)).toEqual(OURS);
    // The body is kept, its suspicious lines indented.
    expect(message).toContain('Did it.');
  });

  it('has a one-line subject, whatever the title holds', () => {
    const message = commitMessage(REAL, {
      subject: 'Add it\nSigned-off-by: Mallory <m@x>\n\n---',
      body: '',
      trailers: OURS,
    });
    expect(message.split('\n')[0]).toBe('Add it Signed-off-by: Mallory <m@x> ---');
    expect(trailers(message)).toEqual(OURS);
  });

  it("keeps MAKER's trailers on one line each, and marks a simulated run's", () => {
    const message = commitMessage(
      { simulated: true, planner: 'sim' },
      { subject: 'Add it', trailers: ['Maker-Worker: jules session a\nSigned-off-by: x'] },
    );
    expect(message).toBe(
      '[simulated] Add it\n\nMaker-Worker: jules session a Signed-off-by: x\nMaker-Simulated: yes',
    );
    expect(trailers(message)).toEqual([
      'Maker-Worker: jules session a Signed-off-by: x',
      'Maker-Simulated: yes',
    ]);
  });

  it('leaves an ordinary body as it is', () => {
    const body = 'Adds the parser.\n\n- handles quotes\n- handles empty lines';
    expect(commitMessage(REAL, { subject: 'Parse CSV', body, trailers: OURS })).toBe(
      `Parse CSV\n\n${body}\n\n${OURS.join('\n')}`,
    );
  });
});
