import { copyFile, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { makerStateFile } from '../../../src/adapters/state/state-file.js';
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

  it('never holds a secret', async () => {
    const text = await readFile(join('test', 'fixtures', 'state', 'v1-done-run.json'), 'utf8');
    expect(text).not.toMatch(/AIza|ghp_|apiKey|GEMINI_API_KEY/);
  });
});
