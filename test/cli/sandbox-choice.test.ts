import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { maker } from '../helpers/cli.js';
import { useTempDirs } from '../helpers/tmp.js';

const tempDir = useTempDirs();
const TYPO = { MAKER_SANDBOX: 'bubblewarp' };
const SAID = /MAKER_SANDBOX=bubblewarp is not a sandbox MAKER knows: use bubblewrap or unshare/;

describe('a MAKER_SANDBOX that names no sandbox', () => {
  it('stops a run before anything is made, and maker sandbox before anything runs', async () => {
    const dir = join(await tempDir(), 'repo');
    const run = await maker(
      ['run', 'a note', '--dir', dir, '--worker', 'sim', '--hitl', 'auto', '--max-depth', '0'],
      TYPO,
    );
    expect(run.code, run.stderr).toBe(2);
    expect(run.stderr).toMatch(SAID);
    expect(existsSync(dir)).toBe(false);
    const sandbox = await maker(['sandbox', 'true', '--dir', await tempDir()], TYPO);
    expect(sandbox.code, sandbox.stderr).toBe(2);
    expect(sandbox.stderr).toMatch(SAID);
    expect(sandbox.stderr).toContain('Nothing ran.');
  });

  it('is what maker doctor says a run would be refused for', async () => {
    const text = await maker(['doctor'], TYPO);
    expect(text.stdout).toMatch(/Checks:\n {2}A run would be refused: MAKER_SANDBOX=bubblewarp/);
    const json = await maker(['doctor', '--json'], TYPO);
    const { sandbox } = JSON.parse(json.stdout) as { sandbox: Record<string, unknown> };
    expect(sandbox['choice']).toBe('bubblewarp');
    expect(sandbox['choiceProblem']).toMatch(SAID);
    const fine = await maker(['doctor', '--json'], { MAKER_SANDBOX: 'none' });
    expect((JSON.parse(fine.stdout) as { sandbox: Record<string, unknown> }).sandbox).toMatchObject(
      { choice: 'none', choiceProblem: null },
    );
  });
});
