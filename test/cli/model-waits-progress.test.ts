import { describe, expect, it } from 'vitest';
import { runProgress } from '../../src/surfaces/cli/commands/run-progress.js';
import type { CliIo } from '../../src/surfaces/cli/io.js';
import { node, runOf } from '../helpers/runs.js';

/** A run with one node, enough for the progress line's counts. */
const RUN = runOf([node('root')]);

function io(tty: boolean, out: string[]): CliIo {
  return {
    stdout: () => undefined,
    stderr: (t) => void out.push(t),
    stderrIsTty: tty,
    stdinIsTty: false,
    env: {},
    cwd: '/',
  };
}

const at = (iso: string) => ({ seq: 1, runId: 'r1', at: iso });

describe('the progress of a run waiting on its model', () => {
  it('on a terminal: "waiting on the model (42 s)", then "rate limited, retrying in 30 s", never a silent line', () => {
    const out: string[] = [];
    let now = Date.parse('2026-11-23T09:00:42Z');
    const progress = runProgress(io(true, out), RUN, () => now);
    progress.event({
      ...at('2026-11-23T09:00:10Z'),
      type: 'wait-start',
      waitId: 'w1',
      service: 'gemini-cli',
      reason: 'waiting on the model',
      until: '2026-11-23T09:10:00.000Z',
      since: '2026-11-23T09:00:00.000Z',
    });
    expect(out.at(-1)).toMatch(/· waiting on the model \(42 s\)$/);
    now += 3000;
    progress.event({
      ...at('x'),
      type: 'vote-start',
      nodeId: 'n-root',
      vote: 'minimal',
    });
    expect(out.at(-1)).toMatch(/· waiting on the model \(45 s\)$/);
    progress.event({
      ...at('x'),
      type: 'wait-end',
      waitId: 'w1',
      service: 'gemini-cli',
    });
    progress.event({
      ...at('x'),
      type: 'wait-start',
      waitId: 'w2',
      service: 'gemini',
      reason: 'rate limited, retrying in 30 s',
      until: '2026-11-23T09:01:15.000Z',
    });
    expect(out.at(-1)).toMatch(/· rate limited, retrying in 30 s$/);
    progress.clear();
  });

  it('in a log: one line a wait, saying what it waits for', () => {
    const out: string[] = [];
    const progress = runProgress(io(false, out), RUN);
    progress.event({
      ...at('x'),
      type: 'wait-start',
      waitId: 'w1',
      service: 'gemini',
      reason: 'waiting on the model',
      until: '2026-11-23T09:10:00.000Z',
      since: '2026-11-23T09:00:00.000Z',
    });
    progress.event({
      ...at('x'),
      type: 'wait-start',
      waitId: 'w2',
      service: 'gemini',
      reason: 'rate limited, retrying in 30 s',
      until: '2026-11-23T09:01:15.000Z',
    });
    expect(out).toEqual([
      'maker: waiting on the model (gemini) since 09:00:00 UTC, at most until 09:10:00 UTC\n',
      'maker: waiting for gemini until 09:01:15 UTC: rate limited, retrying in 30 s\n',
    ]);
  });
});
