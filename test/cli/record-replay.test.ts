import { readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { startFakeGemini, type FakeGemini } from '../../src/offline/fake-gemini.js';
import { conflictModel } from '../helpers/conflict-model.js';
import { projectModel } from '../helpers/project-model.js';
import { useTempDirs } from '../helpers/tmp.js';
import { isIntegration } from '../helpers/prompts.js';
import { maker } from '../helpers/cli.js';

const tempDir = useTempDirs();
// Shaped like a real key, built at run time.
const KEY = ['AIza', 'R'.repeat(35)].join('');
let fake: FakeGemini | undefined;

afterEach(async () => {
  await fake?.close();
  fake = undefined;
});

const IDEA = 'a CSV to JSON converter';
const RUN = ['--worker', 'gemini', '--hitl', 'auto', '--max-depth', '1', '--json'];

describe('record and replay (MAKER_RECORD, --replay)', () => {
  it(
    'replays a recorded run with no key and no server, to the same tree',
    { timeout: 120_000 },
    async () => {
      fake = await startFakeGemini(projectModel);
      const recording = join(await tempDir(), 'recording');
      const first = await maker(['run', IDEA, '--dir', await tempDir(), ...RUN], {
        GEMINI_API_KEY: KEY,
        GOOGLE_GEMINI_BASE_URL: fake.baseUrl,
        MAKER_RECORD: recording,
      });
      expect(first.code, first.stderr).toBe(0);
      const recorded = JSON.parse(first.stdout) as { treeHash: string; status: string };
      expect(recorded.treeHash).toMatch(/^[0-9a-f]{40}$/);
      const files = await readdir(recording);
      expect(files).toHaveLength(fake.requests.length);
      for (const name of files) {
        const text = await readFile(join(recording, name), 'utf8');
        expect(text).not.toContain(KEY);
        const exchange = JSON.parse(text) as {
          $schemaVersion: number;
          response?: { text: string };
        };
        expect(exchange.$schemaVersion).toBe(1);
        expect(typeof exchange.response?.text).toBe('string');
      }
      await fake.close();
      fake = undefined;

      const again = await maker(
        ['run', IDEA, '--dir', await tempDir(), ...RUN, '--replay', recording],
        {},
      );
      expect(again.code, again.stderr).toBe(0);
      expect(again.stderr).toContain(`replaying model answers from ${recording}`);
      expect(JSON.parse(again.stdout)).toMatchObject({
        treeHash: recorded.treeHash,
        status: recorded.status,
      });

      // A replayed run killed before landing resumes from the recording too, with no key.
      const crashedDir = await tempDir();
      const crashed = await maker(
        ['run', IDEA, '--dir', crashedDir, ...RUN, '--replay', recording],
        {
          MAKER_CRASH_AT: 'land:intent-saved',
        },
      );
      expect(crashed.code).not.toBe(0);
      const keyless = await maker(['resume', '--dir', crashedDir, '--json'], {});
      expect(keyless.code).toBe(2);
      expect(keyless.stderr).toContain('GEMINI_API_KEY is not set');
      const resumed = await maker(
        ['resume', '--dir', crashedDir, '--json', '--replay', recording],
        {},
      );
      expect(resumed.code, resumed.stderr).toBe(0);
      expect(JSON.parse(resumed.stdout)).toMatchObject({ treeHash: recorded.treeHash });

      // Another idea asks questions the recording never saw: the run stops, naming the request (the
      // root's split: with checks on and no --check, a root is split without a minimality vote).
      const other = await maker(
        ['run', 'a todo list', '--dir', await tempDir(), ...RUN, '--replay', recording],
        {},
      );
      expect(other.code).toBe(1);
      expect(other.stdout + other.stderr).toMatch(
        /has no answer for this request \(draw root:split:\d+/,
      );
    },
  );

  it(
    'replays a recorded run with a merge conflict to the same tree (markers name sides, not commits)',
    { timeout: 120_000 },
    async () => {
      fake = await startFakeGemini(conflictModel);
      const recording = join(await tempDir(), 'recording');
      const first = await maker(['run', 'a greeter', '--dir', await tempDir(), ...RUN], {
        GEMINI_API_KEY: KEY,
        GOOGLE_GEMINI_BASE_URL: fake.baseUrl,
        MAKER_RECORD: recording,
      });
      expect(first.code, first.stderr).toBe(0);
      expect(fake.requests.some((r) => isIntegration(r.prompt))).toBe(true);
      const recorded = JSON.parse(first.stdout) as { treeHash: string; status: string };
      await fake.close();
      fake = undefined;

      // Another run id, other commit ids: the same questions all the same.
      const again = await maker(
        ['run', 'a greeter', '--dir', await tempDir(), ...RUN, '--replay', recording],
        {},
      );
      expect(again.code, again.stdout + again.stderr).toBe(0);
      expect(JSON.parse(again.stdout)).toMatchObject({
        treeHash: recorded.treeHash,
        status: recorded.status,
      });
    },
  );

  it('refuses a replay whose recording does not exist, before anything is created', async () => {
    const dir = join(await tempDir(), 'repo');
    const out = await maker(
      ['run', IDEA, '--dir', dir, ...RUN, '--replay', join(dir, 'nothing')],
      {},
    );
    expect(out.code).toBe(2);
    expect(out.stderr).toContain('is not a directory');
  });
});
