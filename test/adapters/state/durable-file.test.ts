import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { DurableFile } from '../../../src/adapters/state/durable-file.js';
import { useTempDirs } from '../../helpers/tmp.js';

const tempDir = useTempDirs();

describe('a durable file written in pieces', () => {
  it('holds exactly the pieces joined, whatever their sizes and characters', async () => {
    const dir = await tempDir();
    const file = new DurableFile(join(dir, 'state.json'));
    // Many small pieces across several 1 MB buffers, characters of 1 to 4 UTF-8 bytes (a piece
    // ending in a surrogate pair's first half would be split wrongly), a piece as large as the
    // buffer, and one larger.
    const pieces: string[] = [];
    for (let i = 0; i < 40_000; i++) pieces.push(`{"n":${i},"t":"é€😀${'x'.repeat(i % 97)}"},`);
    pieces.push('ü'.repeat(1 << 19), '€'.repeat((1 << 20) + 7), 'end');
    await file.write(pieces);
    expect(await readFile(file.path, 'utf8')).toBe(pieces.join(''));
    // A second write replaces the file and keeps the first as the backup.
    await file.write(['a', 'b']);
    expect(await readFile(file.path, 'utf8')).toBe('ab');
    expect(await readFile(file.backupPath, 'utf8')).toBe(pieces.join(''));
  });
});
