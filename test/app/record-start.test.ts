import { existsSync } from 'node:fs';
import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { makerStateFile } from '../../src/adapters/state/state-file.js';
import { recordStart } from '../../src/app/start/record-start.js';
import { intentConfig } from '../helpers/intent.js';
import type { StartIntent } from '../../src/core/tree/schema.js';
import { useTempDirs } from '../helpers/tmp.js';

/** A start's first write, shared by `maker run`, `maker demo`, `maker resume` and `maker_start`. */
const tempDir = useTempDirs();
const SECRET = 'ghp_recordStartSecret0123456789abcdef';

function intent(creates: boolean): StartIntent {
  return {
    id: 'r-record',
    idea: `a csv tool (token ${SECRET})`,
    createdAt: '2026-12-02T00:00:00.000Z',
    command: 'run',
    config: intentConfig(),
    creates: { directory: creates, gitRepository: true, githubRepository: false },
  };
}

/** A lock that says what happened to it, and what the start saw, in order. */
function watched(opts: { resuming?: boolean; holder?: () => boolean } = {}) {
  const events: string[] = [];
  const lock = { release: () => (events.push('released'), Promise.resolve()) };
  const how = {
    take: () => (events.push('taken'), Promise.resolve(lock)),
    locked: () => void events.push('locked'),
    settings: { secrets: [SECRET], seam: (at: string) => void events.push(`seam ${at}`) },
    resuming: opts.resuming ?? false,
    released: () => void events.push('forgotten'),
    holder: () =>
      Promise.resolve(
        opts.holder?.() === true
          ? { forget: (id: string) => (events.push(`holder forgets ${id}`), Promise.resolve()) }
          : undefined,
      ),
  };
  return { events, how };
}

const starting = async (dir: string) => (await makerStateFile(dir).load()).starting;

describe('recordStart', () => {
  it('makes the folder, takes the lock, then saves the intent with its secrets redacted', async () => {
    const dir = join(await tempDir(), 'new');
    const { events, how } = watched();
    await recordStart(dir, intent(true), how);
    expect(events).toEqual(['taken', 'locked', 'seam start:locked']);
    expect((await starting(dir))?.id).toBe('r-record');
    const text = await readFile(join(dir, 'maker-state.json'), 'utf8');
    expect(text).toContain('a csv tool');
    expect(text).not.toContain(SECRET);
  });

  it('undone with nothing made: the state file and the folder it made go, and the lock', async () => {
    const dir = join(await tempDir(), 'new');
    const { events, how } = watched();
    const undo = await recordStart(dir, intent(true), how);
    await undo(true);
    expect(existsSync(dir)).toBe(false);
    expect(events.slice(-2)).toEqual(['forgotten', 'released']);
  });

  it('undone with nothing made where a state file was: only its own intent goes', async () => {
    const dir = await tempDir();
    const store = makerStateFile(dir);
    await store.save(await store.load());
    const { how } = watched();
    const undo = await recordStart(dir, intent(false), how);
    await undo(true);
    expect(existsSync(join(dir, 'maker-state.json'))).toBe(true);
    expect(await starting(dir)).toBeUndefined();
  });

  it('undone after something was made: the intent stays for maker resume; the lock goes', async () => {
    const dir = join(await tempDir(), 'new');
    const { events, how } = watched();
    const undo = await recordStart(dir, intent(true), how);
    await undo(false);
    expect((await starting(dir))?.id).toBe('r-record');
    expect(events.at(-1)).toBe('released');
  });

  it('finishing an interrupted start: its intent and folder stay whatever the set-up says', async () => {
    const dir = join(await tempDir(), 'new');
    const { how } = watched({ resuming: true });
    const undo = await recordStart(dir, intent(true), how);
    await undo(true);
    expect((await starting(dir))?.id).toBe('r-record');
  });

  it('when the workspace is held open now, the holder forgets the intent and keeps the lock', async () => {
    const dir = join(await tempDir(), 'new');
    let open = false;
    const { events, how } = watched({ holder: () => open });
    const undo = await recordStart(dir, intent(true), how);
    open = true;
    await undo(true);
    expect(events.slice(3)).toEqual(['holder forgets r-record']);
    expect((await starting(dir))?.id).toBe('r-record'); // the holder's own save removes it
    expect(existsSync(dir)).toBe(true);
  });

  it('a state file it cannot read is left as it was, and the lock is let go of', async () => {
    const dir = await tempDir();
    await writeFile(join(dir, 'maker-state.json'), '{ not json');
    const { events, how } = watched();
    await expect(recordStart(dir, intent(false), how)).rejects.toThrow(/maker-state\.json/);
    expect(await readFile(join(dir, 'maker-state.json'), 'utf8')).toBe('{ not json');
    expect(events.slice(-2)).toEqual(['forgotten', 'released']);
  });
});
