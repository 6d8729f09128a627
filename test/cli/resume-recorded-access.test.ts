import { execFileSync } from 'node:child_process';
import { mkdir, symlink } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { maker } from '../helpers/cli.js';
import { stubGemini } from '../helpers/stub-gemini.js';
import { useTempDirs } from '../helpers/tmp.js';

/**
 * A run keeps the model access it started with (its state records it): a resume is checked with
 * that access, not with the one the environment asks for now. Killed through seams, not timing.
 */
const tempDir = useTempDirs();
const RUN = ['--worker', 'gemini', '--hitl', 'defer', '--no-checks', '--max-depth', '0'];

/** A PATH with git and a stand-in `gemini` that is signed in, and nothing else. */
async function pathWithGemini(): Promise<string> {
  const stub = await stubGemini(await tempDir());
  const bin = join(await tempDir(), 'bin');
  await mkdir(bin);
  const git = execFileSync('sh', ['-c', 'command -v git'], { encoding: 'utf8' }).trim();
  await symlink(git, join(bin, 'git'));
  return `${stub.bin}:${bin}`;
}

describe('a resume checks the model access the run recorded', () => {
  it.each([
    ['a start killed before its run was saved', 'start:intent-saved'],
    ['a run killed after its first save', 'state:snapshot-written'],
  ])('%s, while the environment now asks for another', async (_name, step) => {
    const PATH = await pathWithGemini();
    const dir = join(await tempDir(), 'repo');
    const killed = await maker(
      ['run', 'a note', '--dir', dir, ...RUN, '--model-access', 'gemini-cli'],
      { PATH, MAKER_CRASH_AT: step },
    );
    expect(killed.signal, killed.stderr).toBe('SIGKILL');
    // Now the environment asks for a key that is not set: the run still has its Gemini CLI.
    const resumed = await maker(['resume', '--dir', dir], {
      PATH,
      MAKER_MODEL_ACCESS: 'key',
      MAKER_CRASH_AT: 'state:snapshot-written',
    });
    expect(resumed.stderr).not.toMatch(/is not available/);
    expect(resumed.signal, resumed.stderr).toBe('SIGKILL');
  });
});
