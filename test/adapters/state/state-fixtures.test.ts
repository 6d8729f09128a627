import { copyFile, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { makerStateFile } from '../../../src/adapters/state/state-file.js';
import { logHeader } from '../../../src/adapters/state/state-log.js';
import { STATE_SCHEMA_VERSION } from '../../../src/core/tree/schema.js';
import { useTempDirs } from '../../helpers/tmp.js';

const tempDir = useTempDirs();

describe('maker-state.json history', () => {
  it.each(['v1-done-run.json'])('keeps loading the saved fixture %s', async (fixture) => {
    const dir = await tempDir();
    await copyFile(join('test', 'fixtures', 'state', fixture), join(dir, 'maker-state.json'));
    const state = await makerStateFile(dir).load();
    expect(state.$schemaVersion).toBe(STATE_SCHEMA_VERSION);
    const run = Object.values(state.runs)[0];
    expect(run?.status).toBe('done');
    expect(run?.nodes['root']?.children).toEqual(['0']);
    expect(run?.questions.every((q) => q.answer !== undefined)).toBe(true);
    // 1 → 2 dropped the never-written cost.usd.
    expect(run?.nodes['root']?.cost).toEqual({
      modelCalls: expect.any(Number) as number,
      workerRuns: expect.any(Number) as number,
      tokens: expect.any(Number) as number,
    });
  });

  it("keeps loading v2-jules-run.json: 2 → 3 made its Jules settings its worker kind's options", async () => {
    const dir = await tempDir();
    await copyFile(
      join('test', 'fixtures', 'state', 'v2-jules-run.json'),
      join(dir, 'maker-state.json'),
    );
    const state = await makerStateFile(dir).load();
    expect(state.$schemaVersion).toBe(STATE_SCHEMA_VERSION);
    const run = Object.values(state.runs)[0];
    expect(run?.config.worker).toBe('jules-fake');
    expect(run?.config.workerOptions).toEqual({
      concurrency: 15,
      dailySessions: 10_000,
      planReview: false,
    });
    expect(run?.config).not.toHaveProperty('jules');
  });

  it('2 → 3 keeps what v2 read of a Jules setting it allowed to be missing (planReview: false)', async () => {
    const dir = await tempDir();
    const v2 = JSON.parse(
      await readFile(join('test', 'fixtures', 'state', 'v2-jules-run.json'), 'utf8'),
    ) as { runs: Record<string, { config: Record<string, unknown> }> };
    for (const run of Object.values(v2.runs))
      run.config['jules'] = { concurrency: 3, dailySessions: 15 };
    await writeFile(join(dir, 'maker-state.json'), JSON.stringify(v2));
    const state = await makerStateFile(dir).load();
    expect(Object.values(state.runs)[0]?.config.workerOptions).toEqual({
      concurrency: 3,
      dailySessions: 15,
      planReview: false,
    });
  });

  it('replays a v2 log over its v2 snapshot before migrating both: what the log says of Jules is kept too', async () => {
    const dir = await tempDir();
    const text = await readFile(join('test', 'fixtures', 'state', 'v2-jules-run.json'), 'utf8');
    const snapshot = JSON.parse(text) as {
      $generation: number;
      runs: Record<string, { config: Record<string, unknown> }>;
    };
    await writeFile(join(dir, 'maker-state.json'), text);
    const [id, run] = Object.entries(snapshot.runs)[0] ?? [];
    if (id === undefined || run === undefined) throw new Error('fixture changed');
    // A resume that changed the run's Jules settings: its run head, in v2.
    const head: Record<string, unknown> = { ...run };
    delete head['nodes'];
    const raised = {
      ...head,
      config: { ...run.config, jules: { concurrency: 3, dailySessions: 50, planReview: true } },
    };
    await writeFile(
      join(dir, 'maker-state.json.log'),
      `${logHeader(snapshot.$generation)}${JSON.stringify({ run: id, head: raised })}\n`,
    );
    const state = await makerStateFile(dir).load();
    expect(state.runs[id]?.config.workerOptions).toEqual({
      concurrency: 3,
      dailySessions: 50,
      planReview: true,
    });
    expect(state.runs[id]?.config).not.toHaveProperty('jules');
    expect(Object.keys(state.runs[id]?.nodes ?? {})).toEqual(
      Object.keys((run as { nodes?: object }).nodes ?? {}),
    );
  });

  it('never holds a secret', async () => {
    for (const fixture of ['v1-done-run.json', 'v2-jules-run.json']) {
      const text = await readFile(join('test', 'fixtures', 'state', fixture), 'utf8');
      expect(text).not.toMatch(/AIza|ghp_|apiKey|GEMINI_API_KEY/);
    }
  });
});
