import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync } from 'node:fs';
import { afterEach, describe, expect, it } from 'vitest';
import { useTempDirs } from '../helpers/tmp.js';
import { CLI } from './cli-process.js';
import { http } from './http.js';

const tempDir = useTempDirs();
/** util-linux `script` gives the CLI a terminal (questions are asked at a terminal only). */
const SCRIPT = '/usr/bin/script';
const children: ChildProcess[] = [];
afterEach(() => {
  // Stopped by its own handle even when the test failed half-way (the terminal ends with it).
  for (const child of children.splice(0)) if (child.exitCode === null) child.kill('SIGKILL');
});

describe.skipIf(!existsSync(SCRIPT))('maker run --view --hitl tty', () => {
  it(
    'asks at the terminal and on the page; an answer on the page withdraws the terminal prompt',
    { timeout: 120_000 },
    async () => {
      const dir = await tempDir();
      const command = [
        process.execPath,
        CLI,
        'run',
        'a todo app',
        '--dir',
        dir,
        '--worker',
        'sim',
        '--view',
        '--hitl',
        'tty',
      ]
        .map((a) => `'${a.replace(/'/g, `'\\''`)}'`)
        .join(' ');
      // exec: the CLI is the terminal's only process, so Ctrl-C reaches it alone (a shell left
      // waiting on it would die of the same SIGINT and turn the CLI's own exit status into 130).
      const child = spawn(SCRIPT, ['-qfec', `exec ${command}`, '/dev/null'], {
        stdio: ['pipe', 'pipe', 'pipe'],
        env: { ...process.env, SHELL: '/bin/sh' },
      });
      children.push(child);
      let screen = '';
      const seen = (pattern: RegExp) =>
        new Promise<RegExpExecArray>((resolve, reject) => {
          const look = () => {
            const m = pattern.exec(screen);
            if (m !== null) {
              child.stdout.off('data', look);
              resolve(m);
            }
          };
          child.stdout.on('data', look);
          child.once('exit', () => reject(new Error(`ended before ${pattern}:\n${screen}`)));
          look();
        });
      child.stdout.setEncoding('utf8').on('data', (c: string) => (screen += c));
      const exited = new Promise<number | null>((resolve) =>
        child.on('exit', (code) => resolve(code)),
      );
      try {
        const url = new URL(
          (await seen(/live view at (http:\/\/127\.0\.0\.1:\d+\/\?\S+)/))[1] ?? '',
        );
        await seen(/\? MAKER finished [^]*?Choose a number: /);
        const answered = await http(Number(url.port), '/api/answer', {
          method: 'POST',
          headers: {
            'content-type': 'application/json',
            'x-maker-token': url.searchParams.get('token') ?? '',
          },
          body: JSON.stringify({
            runId: url.searchParams.get('run'),
            questionId: 'q-root-veto',
            answer: 'accept',
          }),
        });
        expect(answered.status).toBe(200);
        await seen(/\(answered elsewhere: accept\)/);
        await seen(/SIMULATED run r[\w-]+: done/);
        await seen(/the view stays open/);
        child.stdin.write('\x03');
        expect(await exited).toBe(0);
      } finally {
        if (child.exitCode === null) child.kill('SIGKILL');
      }
    },
  );
});
