import { describe, expect, it } from 'vitest';
import { AbortedError } from '../../src/core/errors.js';
import { runCheck, runCheckWhole, type CheckContext } from '../../src/engine/checks/checks.js';

/**
 * A check is run once per tree and command in a run: identical candidates checked at the same
 * time share one sandbox run, and a whole output asked for again is not run again while it is
 * among the last kept. A run that does not finish (cancelled) is not remembered.
 */

interface Scripted {
  readonly ctx: CheckContext;
  /** Each sandbox run asked of the workspace: tree and command. */
  readonly runs: string[];
  /** Ends every run in flight: with `output` (a pass), or rejects them. */
  readonly finish: (outcome?: { output: string } | Error) => void;
}

function scripted(run: object = { config: { install: '' } }): Scripted {
  const runs: string[] = [];
  const waiting: {
    resolve: (r: { ok: boolean; output: string }) => void;
    reject: (e: Error) => void;
  }[] = [];
  const workspace = {
    runCheck: (tree: string, command: string) => {
      runs.push(`${tree} ${command}`);
      return new Promise<{ ok: boolean; output: string }>((resolve, reject) =>
        waiting.push({ resolve, reject }),
      );
    },
  };
  return {
    ctx: { checks: workspace, run } as unknown as CheckContext,
    runs,
    finish: (outcome = { output: 'ok' }) => {
      for (const w of waiting.splice(0))
        if (outcome instanceof Error) w.reject(outcome);
        else w.resolve({ ok: true, output: outcome.output });
    },
  };
}

/** Lets every pending promise callback run. */
const settle = () => new Promise((resolve) => setImmediate(resolve));

describe('a check on one tree runs once (issue #36 draws identical candidates)', () => {
  it('shares a run in flight between identical candidates, and knows its result after', async () => {
    const { ctx, runs, finish } = scripted();
    const a = runCheck(ctx, 'tree1', 'npm test');
    const b = runCheck(ctx, 'tree1', 'npm test');
    const whole = runCheckWhole(ctx, 'tree1', 'npm test');
    const other = runCheck(ctx, 'tree2', 'npm test');
    await settle();
    expect(runs).toEqual(['tree1 npm test', 'tree2 npm test']);
    finish({ output: 'pass 1' });
    expect(await a).toEqual({ command: 'npm test', ok: true, output: 'pass 1' });
    expect(await b).toEqual(await a);
    expect((await whole).output).toBe('pass 1');
    expect((await other).ok).toBe(true);
    expect(await runCheck(ctx, 'tree1', 'npm test')).toEqual(await a);
    expect((await runCheckWhole(ctx, 'tree1', 'npm test')).output).toBe('pass 1');
    expect(runs).toHaveLength(2);
  });

  it('runs again a check that was cancelled', async () => {
    const { ctx, runs, finish } = scripted();
    const cancelled = runCheckWhole(ctx, 'tree1', 'npm test');
    await settle();
    finish(new AbortedError('cancelled'));
    await expect(cancelled).rejects.toThrow(AbortedError);
    await settle();
    const again = runCheck(ctx, 'tree1', 'npm test');
    await settle();
    finish();
    expect((await again).ok).toBe(true);
    expect(runs).toEqual(['tree1 npm test', 'tree1 npm test']);
  });

  it('keeps the last 32 whole outputs, and every result', async () => {
    const { ctx, runs, finish } = scripted();
    for (let i = 0; i < 33; i++) {
      const run = runCheckWhole(ctx, `tree${i}`, 'npm test');
      await settle();
      finish({ output: `out ${i}` });
      await run;
    }
    expect(runs).toHaveLength(33);
    // The oldest whole output is gone: asked for again, it runs again; its result is still known.
    // (A run asked of the workspace here would end with another output.)
    const known = runCheck(ctx, 'tree0', 'npm test');
    await settle();
    finish({ output: 'run again' });
    expect((await known).output).toBe('out 0');
    expect(runs).toHaveLength(33);
    const again = runCheckWhole(ctx, 'tree0', 'npm test');
    await settle();
    finish({ output: 'out 0' });
    expect((await again).output).toBe('out 0');
    expect(runs).toHaveLength(34);
    // The newest is still there.
    const newest = runCheckWhole(ctx, 'tree32', 'npm test');
    await settle();
    finish({ output: 'run again' });
    expect((await newest).output).toBe('out 32');
    expect(runs).toHaveLength(34);
  });

  it('runs every time without a run to remember it in', async () => {
    const { ctx, runs, finish } = scripted();
    const bare = { ...ctx, run: undefined } as CheckContext;
    const first = runCheck(bare, 'tree1', 'npm test');
    await settle();
    finish();
    await first;
    const second = runCheck(bare, 'tree1', 'npm test');
    await settle();
    finish();
    await second;
    expect(runs).toHaveLength(2);
  });
});
