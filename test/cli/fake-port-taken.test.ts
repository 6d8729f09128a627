import { execFileSync } from 'node:child_process';
import { createServer, type Server } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { maker } from '../helpers/cli.js';
import { useTempDirs } from '../helpers/tmp.js';

/** A fake server asked for a port another process holds says so, as what to do: no stack trace. */

const tempDir = useTempDirs();
const held: Server[] = [];
afterEach(async () => {
  await Promise.all(held.splice(0).map((s) => new Promise((resolve) => s.close(resolve))));
});

async function takenPort(): Promise<number> {
  const server = createServer();
  held.push(server);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return (server.address() as { port: number }).port;
}

describe('a fake server on a taken port', () => {
  it.each([
    ['fake-github', () => Promise.resolve([])],
    [
      'fake-jules',
      async () => {
        const dir = await tempDir();
        execFileSync('git', ['init', '-q', '-b', 'main', dir]);
        return ['--source', `a/b=${dir}`];
      },
    ],
  ] as const)('maker %s refuses it by name', async (command, extra) => {
    const port = await takenPort();
    const result = await maker([command, '--port', String(port), ...(await extra())]);
    expect(result.code).not.toBe(0);
    expect(result.stderr).toContain(
      `Port ${port} of 127.0.0.1 is in use already: give another --port, or leave --port out for a free one.`,
    );
    expect(result.stderr).not.toMatch(/^\s+at /m);
    expect(result.stdout).toBe('');
  });
});
