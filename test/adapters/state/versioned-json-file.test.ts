import { readFile, readdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import {
  StateFileError,
  VersionedJsonFile,
} from '../../../src/adapters/state/versioned-json-file.js';
import { Journal } from '../../../src/adapters/state/journal.js';
import { useTempDirs } from '../../helpers/tmp.js';

const schema = z.object({
  $schemaVersion: z.literal(2),
  runs: z.record(z.string(), z.object({ idea: z.string(), k: z.number() })),
});
type Doc = z.infer<typeof schema>;

const tempDir = useTempDirs();

async function fileIn(dir: string, content?: string) {
  const path = join(dir, 'maker-state.json');
  if (content !== undefined) await writeFile(path, content);
  return {
    path,
    store: new VersionedJsonFile<Doc>({
      path,
      schema,
      currentVersion: 2,
      migrations: {
        1: (doc) => ({
          ...doc,
          runs: Object.fromEntries(
            Object.entries(doc['runs'] as Record<string, { idea: string }>).map(([id, run]) => [
              id,
              { ...run, k: 3 },
            ]),
          ),
        }),
      },
      empty: () => ({ $schemaVersion: 2, runs: {} }),
      description: 'MAKER state',
    }),
  };
}

describe('VersionedJsonFile', () => {
  it('starts empty, saves atomically, and reads back what it saved', async () => {
    const dir = await tempDir();
    const { store, path } = await fileIn(dir);
    const doc = await store.load();
    expect(doc).toEqual({ $schemaVersion: 2, runs: {} });
    await store.save({ $schemaVersion: 2, runs: { r1: { idea: 'csv to parquet', k: 2 } } });
    await expect((await fileIn(dir)).store.load()).resolves.toEqual({
      $schemaVersion: 2,
      runs: { r1: { idea: 'csv to parquet', k: 2 } },
    });
    expect(await readdir(dir)).toEqual(['maker-state.json']); // no temp file left behind
    expect(JSON.parse(await readFile(path, 'utf8'))).toMatchObject({ $schemaVersion: 2 });
  });

  it('keeps the previous version as .bak, and offers it when the file is torn', async () => {
    const dir = await tempDir();
    const { store, path } = await fileIn(dir);
    await store.load();
    await store.save({ $schemaVersion: 2, runs: { r1: { idea: 'first', k: 2 } } });
    await store.save({ $schemaVersion: 2, runs: { r1: { idea: 'second', k: 2 } } });
    expect((await readdir(dir)).sort()).toEqual(['maker-state.json', 'maker-state.json.bak']);
    expect(JSON.parse(await readFile(`${path}.bak`, 'utf8'))).toMatchObject({
      runs: { r1: { idea: 'first' } },
    });
    // A power loss mid-write on a file system without ordering: a torn file.
    const torn = (await readFile(path, 'utf8')).slice(0, 20);
    await writeFile(path, torn);
    const error = await (await fileIn(dir)).store.load().catch((e: unknown) => e);
    expect(error).toBeInstanceOf(StateFileError);
    expect((error as Error).message).toMatch(
      new RegExp(
        `not valid JSON.*left untouched\\. The previous version \\(${path.replace(/[.]/g, '\\.')}\\.bak, saved .*\\) reads correctly: restore it with  mv`,
      ),
    );
    expect(await readFile(path, 'utf8')).toBe(torn);
    // An unusable backup is not offered.
    await writeFile(`${path}.bak`, '{');
    const plain = await (await fileIn(dir)).store.load().catch((e: unknown) => e);
    expect((plain as Error).message).not.toMatch(/previous version/);
  });

  it('migrates an older version on load', async () => {
    const dir = await tempDir();
    const { store } = await fileIn(
      dir,
      JSON.stringify({ $schemaVersion: 1, runs: { r1: { idea: 'x' } } }),
    );
    expect(await store.load()).toEqual({ $schemaVersion: 2, runs: { r1: { idea: 'x', k: 3 } } });
  });

  it.each([
    ['corrupt', '{"$schemaVersion": 2, "runs": {', /not valid JSON/],
    ['corrupt', '', /it is empty/],
    ['foreign', '{"name": "some-package", "version": "1.0.0"}', /not a MAKER state file/],
    ['foreign', '[1, 2, 3]', /not a MAKER state file/],
    [
      'newer',
      '{"$schemaVersion": 9, "runs": {}}',
      /schema version 9, newer than this program understands \(2\)/,
    ],
    ['invalid', '{"$schemaVersion": 2, "runs": {"r1": {"idea": 7, "k": 3}}}', /runs\.r1\.idea/],
  ] as const)(
    'refuses a %s file with an error naming it, and never overwrites it',
    async (problem, content, message) => {
      const dir = await tempDir();
      const { store, path } = await fileIn(dir, content);
      const error = await store.load().catch((e: unknown) => e);
      expect(error).toBeInstanceOf(StateFileError);
      expect(error).toMatchObject({ problem, path });
      expect((error as Error).message).toContain(path);
      expect((error as Error).message).toMatch(message);
      await expect(store.save({ $schemaVersion: 2, runs: {} })).rejects.toThrow(
        /not read successfully/,
      );
      expect(await readFile(path, 'utf8')).toBe(content);
    },
  );
});

describe('Journal', () => {
  it('appends JSONL in order, skips a torn last line, and redacts secrets', async () => {
    const dir = await tempDir();
    const secret = ['AIza', 'Q'.repeat(35)].join('');
    const journal = new Journal(join(dir, 'maker-journal.jsonl'), [secret]);
    await Promise.all([1, 2, 3].map((n) => journal.append({ seq: n, type: 'sample-drawn' })));
    await journal.append({ seq: 4, type: 'error', message: `key ${secret} rejected` });
    await writeFile(journal.path, (await readFile(journal.path, 'utf8')) + '{"seq": 5, "ty');
    const records = await journal.read();
    expect(records.map((r) => r['seq'])).toEqual([1, 2, 3, 4]);
    expect(await readFile(journal.path, 'utf8')).not.toContain(secret);
    expect(records[3]?.['message']).toBe('key [redacted] rejected');
  });

  it('starts the next process’s first record on a fresh line after a torn one, and leaves tree hashes alone', async () => {
    const dir = await tempDir();
    const path = join(dir, 'maker-journal.jsonl');
    await writeFile(path, '{"seq": 1}\n{"seq": 2, "ty');
    const next = new Journal(path, ['some-configured-key']);
    const key = 'a'.repeat(40);
    await next.append({ seq: 3, type: 'sample-drawn', key });
    await next.append({ seq: 4, type: 'vote-end' });
    const records = await next.read();
    expect(records.map((r) => r['seq'])).toEqual([1, 3, 4]);
    expect(records[1]?.['key']).toBe(key);
  });
});
