import { spawn } from 'node:child_process';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';

const CLI = join(process.cwd(), 'dist', 'maker.js');

/**
 * Runs the bundled CLI with its stdout a pipe whose reading end is closed before the CLI starts
 * writing, as `maker help run | head -1` does once `head` has its line.
 */
async function withClosedStdout(args: readonly string[]) {
  const child = spawn(process.execPath, [CLI, ...args], {
    stdio: ['ignore', 'pipe', 'pipe'],
    env: { PATH: process.env['PATH'] ?? '', HOME: process.env['HOME'] ?? '' },
  });
  child.stdout.destroy();
  let stderr = '';
  child.stderr.setEncoding('utf8');
  child.stderr.on('data', (chunk: string) => (stderr += chunk));
  const code = await new Promise<number | null>((resolve, reject) => {
    child.once('error', reject);
    child.once('close', (status) => resolve(status));
  });
  return { code, stderr };
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
