import { join } from 'node:path';
import { STATE_SCHEMA_VERSION, stateFileSchema, type StateFile } from '../../core/tree/schema.js';
import { VersionedJsonFile } from './versioned-json-file.js';

export const STATE_FILE_NAME = 'maker-state.json';
export const JOURNAL_FILE_NAME = 'maker-journal.jsonl';

/** The workspace's `maker-state.json`: schema version 1, validated on every load. */
export function makerStateFile(dir: string): VersionedJsonFile<StateFile> {
  return new VersionedJsonFile<StateFile>({
    path: join(dir, STATE_FILE_NAME),
    schema: stateFileSchema,
    currentVersion: STATE_SCHEMA_VERSION,
    migrations: {},
    empty: () => ({ $schemaVersion: STATE_SCHEMA_VERSION, runs: {} }),
    description: 'MAKER state',
  });
}
