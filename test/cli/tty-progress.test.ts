import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { maker } from '../helpers/cli.js';
import { useTempDirs } from '../helpers/tmp.js';
import { hasScript, useTerminals } from '../helpers/terminal.js';

const tempDir = useTempDirs();
const terminal = useTerminals();
/** An event's name (`vote-start`, `checks-end`…), which a person should never have to read. */
const EVENT_NAME =
  /\b(run|node|vote|sample|commit|merge|checks|question|wait|context)-(start|end|minimal|split|drawn|flagged|conflict|built|failed|unavailable|asked|answered)\b/;

describe.skipIf(!hasScript)('what a run says as it goes', () => {
  it(
    'tells its events in words on the progress line and in `maker status --trace`',
    { timeout: 60_000 },
    async () => {
      const dir = join(await tempDir(), 'repo');
      const args = ['a todo app', '--dir', dir, '--worker', 'sim', '--max-depth', '1'];
      const t = terminal(['run', ...args, '--confidence', 'low', '--hitl', 'auto']);
      await t.seen(/SIMULATED run r[\w-]+: done/);
      expect(await t.exited).toBe(0);
      // The progress line was drawn (counts and what happened), never an event's name.
      expect(t.screen()).toMatch(/nodes done \(known so far\) · node \S+: /);
      expect(t.screen()).not.toMatch(EVENT_NAME);

      const trace = await maker(['status', '--dir', dir, '--trace']);
      expect(trace.code).toBe(0);
      const journal = trace.stdout.slice(trace.stdout.indexOf('Journal:'));
      expect(journal).toMatch(/node root: checks on its result: \d+ ran, all passed/);
      expect(journal).toMatch(/answered q-root-veto: accept/);
      expect(journal).not.toMatch(EVENT_NAME);
      expect(journal).not.toMatch(/\{"/);
    },
  );
});
