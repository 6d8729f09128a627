import { describe, expect, it } from 'vitest';
import { spawnMaker } from '../helpers/cli.js';

/**
 * Runs the bundled CLI with its stdout a pipe whose reading end is closed before the CLI starts
 * writing, as `maker help run | head -1` does once `head` has its line.
 */
async function withClosedStdout(args: readonly string[]) {
  const { child, stderr } = spawnMaker(args);
  child.stdout.destroy();
  const code = await new Promise<number | null>((resolve, reject) => {
    child.once('error', reject);
    child.once('close', (status) => resolve(status));
  });
  return { code, stderr: stderr() };
}

describe('stdout closed by the reader (maker … | head)', () => {
  it('stops quietly: no EPIPE stack, the command’s own exit status', async () => {
    for (const args of [['help', 'run'], ['bench', 'hanoi', '--help'], ['--help']]) {
      const { code, stderr } = await withClosedStdout(args);
      expect(stderr, args.join(' ')).not.toMatch(/EPIPE|Unhandled 'error' event|\n\s+at /);
      expect(code, args.join(' ')).toBe(0);
    }
  });
});
