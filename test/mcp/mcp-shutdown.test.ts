import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { readFile, readdir, readlink, realpath } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { stateFileSchema } from '../../src/core/tree/schema.js';
import { startFakeGemini } from '../../src/offline/fake-gemini.js';
import { useTempDirs } from '../helpers/tmp.js';

const tempDir = useTempDirs();

/** Processes (other than this one) whose working directory is `dir`. */
async function processesIn(dir: string): Promise<number[]> {
  const real = await realpath(dir);
  const pids = (await readdir('/proc')).filter((p) => /^\d+$/.test(p));
  const found: number[] = [];
  for (const pid of pids)
    if ((await readlink(`/proc/${pid}/cwd`).catch(() => '')) === real) found.push(Number(pid));
  return found;
}

describe('the bundled server when Gemini CLI quits (its standard input closes)', () => {
  it.skipIf(!existsSync('/proc/self/cwd'))(
    'stops a run in the middle of a model call as cancelled, releases the lock, leaves no process behind and exits 0',
    async () => {
      const held: (() => void)[] = [];
      let calls = 0;
      // A model call that does not answer until the test ends: the run is busy when stdin closes.
      const fake = await startFakeGemini(
        () =>
          new Promise((resolve) => {
            calls++;
            held.push(() => resolve({ status: 503, message: 'gone' }));
          }),
      );
      const dir = await tempDir();
      const child = spawn(process.execPath, [join(process.cwd(), 'dist', 'maker-mcp.js')], {
        cwd: dir,
        env: {
          PATH: process.env['PATH'] ?? '',
          MAKER_WORKSPACE: dir,
          GEMINI_API_KEY: 'fake-key-1234',
          GOOGLE_GEMINI_BASE_URL: fake.baseUrl,
        },
        stdio: ['pipe', 'pipe', 'ignore'],
      });
      child.stdout.resume();
      const exited = new Promise<number | null>((resolve) => child.on('exit', resolve));
      try {
        const send = (m: object) => child.stdin.write(`${JSON.stringify(m)}\n`);
        send({
          jsonrpc: '2.0',
          id: 1,
          method: 'initialize',
          params: {
            protocolVersion: '2025-06-18',
            capabilities: {},
            clientInfo: { name: 't', version: '1' },
          },
        });
        send({ jsonrpc: '2.0', method: 'notifications/initialized' });
        send({
          jsonrpc: '2.0',
          id: 2,
          method: 'tools/call',
          params: { name: 'maker_start', arguments: { idea: 'a csv tool' } },
        });
        while (calls === 0 && child.exitCode === null)
          await new Promise((resolve) => setTimeout(resolve, 50));
        child.stdin.end();
        expect(await exited).toBe(0);
      } finally {
        child.kill('SIGKILL');
        for (const release of held) release();
        await fake.close();
      }
      const state = stateFileSchema.parse(
        JSON.parse(await readFile(join(dir, 'maker-state.json'), 'utf8')),
      );
      expect(Object.values(state.runs).map((r) => r.status)).toEqual(['cancelled']);
      expect(existsSync(join(dir, 'maker-state.json.lock'))).toBe(false);
      expect(await processesIn(dir)).toEqual([]);
    },
    60_000,
  );
});
