import { describe, expect, it } from 'vitest';
import { useTempDirs } from '../helpers/tmp.js';
import { hasScript, useTerminals } from '../helpers/terminal.js';
import { http } from './http.js';

const tempDir = useTempDirs();
/** Questions are asked at a terminal only: the CLI runs at a pseudo-terminal. */
const terminal = useTerminals();

describe.skipIf(!hasScript)('maker run --view --hitl tty', () => {
  it(
    'asks at the terminal and on the page; an answer on the page withdraws the terminal prompt',
    { timeout: 120_000 },
    async () => {
      const dir = await tempDir();
      const t = terminal([
        'run',
        'a todo app',
        '--dir',
        dir,
        '--worker',
        'sim',
        '--no-checks',
        '--view',
        '--hitl',
        'tty',
      ]);
      const url = new URL(
        (await t.seen(/live view at (http:\/\/127\.0\.0\.1:\d+\/\?\S+)/))[1] ?? '',
      );
      await t.seen(/\? MAKER finished [^]*?Choose a number: /, 110_000);
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
      await t.seen(/\(answered elsewhere: accept\)/);
      await t.seen(/SIMULATED run r[\w-]+: done/);
      await t.seen(/the view stays open/);
      t.type('\x03');
      expect(await t.exited).toBe(0);
    },
  );
});
