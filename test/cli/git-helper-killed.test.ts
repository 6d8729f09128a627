import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { maker, simRun } from '../helpers/cli.js';
import { useTempDirs } from '../helpers/tmp.js';

/**
 * The helper process that starts MAKER's one-off git commands killed mid-run (through the
 * MAKER_KILL_GIT_HELPER_AT seam, as the out-of-memory killer would): the run never hangs. Killed
 * once, the command goes to a new helper and the run goes on; killed for good, the run stops with
 * a message, and `maker resume` finishes it on the tree an undisturbed run lands.
 */
const tempDir = useTempDirs();

/**
 * The git helper is under test, not the checks, the tree's size or GitHub: sim runs one level deep
 * without checks, composed locally.
 */
const run = (dir: string, env: Record<string, string> = {}) =>
  simRun(dir, ['--no-checks', '--max-depth', '1', '--json'], env);

const treeOf = (stdout: string) => (JSON.parse(stdout) as { treeHash: string | null }).treeHash;

describe('a killed git helper', () => {
  it('once: the run goes on; for good: it stops with a message, and resume lands the same tree', async () => {
    const root = await tempDir();
    const reference = await run(join(root, 'ref'));
    expect(reference.code, reference.stderr).toBe(0);
    const tree = treeOf(reference.stdout);
    expect(tree).toMatch(/^[0-9a-f]{40}$/);

    const once = await run(join(root, 'once'), { MAKER_KILL_GIT_HELPER_AT: '5' });
    expect(once.code, once.stderr).toBe(0);
    expect(treeOf(once.stdout)).toBe(tree);

    const dir = join(root, 'stopped');
    const stopped = await run(dir, { MAKER_KILL_GIT_HELPER_AT: '5+' });
    expect(stopped.code).toBe(1);
    const summary = JSON.parse(stopped.stdout) as { status: string; error: string | null };
    expect(summary.status).toBe('failed');
    expect(summary.error).toMatch(/git [a-z-]+ did not run: the git launcher stopped/);
    const resumed = await maker(['resume', '--dir', dir, '--json']);
    expect(resumed.code, resumed.stderr).toBe(0);
    expect(treeOf(resumed.stdout)).toBe(tree);
  });
});
