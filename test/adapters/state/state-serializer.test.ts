import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { STATE_MIGRATIONS } from '../../../src/adapters/state/migrations.js';
import { stateSerializer } from '../../../src/adapters/state/state-file.js';
import { STATE_SCHEMA_VERSION, stateFileSchema } from '../../../src/core/tree/schema.js';

describe('the state serialiser', () => {
  it('writes exactly what JSON.stringify would, in meaning, and follows changes to live nodes', async () => {
    const v1 = JSON.parse(
      await readFile(join('test', 'fixtures', 'state', 'v1-done-run.json'), 'utf8'),
    ) as Record<string, unknown>;
    const state = stateFileSchema.parse({
      ...STATE_MIGRATIONS[1]?.(v1),
      $schemaVersion: STATE_SCHEMA_VERSION,
    });
    const serialize = stateSerializer();
    expect(JSON.parse(serialize(state))).toEqual(JSON.parse(JSON.stringify(state)));
    const run = Object.values(state.runs)[0];
    const node = run?.nodes['0-0'];
    if (run === undefined || node === undefined) throw new Error('fixture changed');
    node.status = 'sampling'; // live again: must be serialised afresh
    node.title = 'Renamed';
    run.questions = [];
    const again = JSON.parse(serialize(state)) as typeof state;
    expect(again).toEqual(JSON.parse(JSON.stringify(state)));
    expect(stateFileSchema.parse(again).runs[run.id]?.nodes['0-0']?.title).toBe('Renamed');
    expect(JSON.parse(serialize({ $schemaVersion: STATE_SCHEMA_VERSION, runs: {} }))).toEqual({
      $schemaVersion: STATE_SCHEMA_VERSION,
      runs: {},
    });
  });

  it('writes a done node, whose text it no longer keeps, the same each time, as a first write does', async () => {
    const v1 = JSON.parse(
      await readFile(join('test', 'fixtures', 'state', 'v1-done-run.json'), 'utf8'),
    ) as Record<string, unknown>;
    const state = stateFileSchema.parse({
      ...STATE_MIGRATIONS[1]?.(v1),
      $schemaVersion: STATE_SCHEMA_VERSION,
    });
    const run = Object.values(state.runs)[0];
    const node = run?.nodes['0-0'];
    if (run === undefined || node === undefined || node.status !== 'done')
      throw new Error('fixture changed');
    // Worked on, then done: its text was taken in parts (its votes' and draws' texts kept), then let go.
    node.status = 'sampling';
    const serialize = stateSerializer();
    const live = serialize(state);
    node.status = 'done';
    const first = serialize(state);
    expect(serialize(state)).toBe(first);
    expect(stateSerializer()(state)).toBe(first);
    expect(first).not.toBe(live);
    expect(JSON.parse(first)).toEqual(JSON.parse(JSON.stringify(state)));
  });
});
