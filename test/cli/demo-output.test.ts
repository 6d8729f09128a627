import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { maker } from '../helpers/cli.js';
import { useTempDirs } from '../helpers/tmp.js';

const tempDir = useTempDirs();

/** What a newcomer reads at the end of `maker demo` (issue 28, item 9). */
describe('maker demo output', () => {
  it('names its directory, labels totals and the growing tree, and does not pass dead URLs off as live', async () => {
    const dir = join(await tempDir(), 'demo');
    // What it prints is the subject, not its checks: run without a sandbox (so none run).
    const { code, stderr, stdout } = await maker(['demo', '--dir', dir], { MAKER_SANDBOX: 'none' });
    expect(code, stderr).toBe(0);
    // And it says so first: no sandbox, so no checks, so an unverified result.
    expect(stderr).toContain(
      'maker: Checks are off: MAKER_SANDBOX is "none" (unset it to use bubblewrap or unshare), so the demo runs no checks: its result is UNVERIFIED.',
    );
    expect(stdout).toContain(`Directory: ${dir}\n`);
    expect(stdout).toMatch(
      /^SIMULATED GitHub \(the demo's own fake, its world kept in \.git\/maker-fake-github\/; these addresses lived while the demo ran\): http:\/\/127\.0\.0\.1:\d+\/maker-demo\//m,
    );
    // A finished demo is not resumed: no line may say resume serves it again.
    expect(stdout).not.toMatch(/serves it again/);
    const progress = stderr.split('\n').filter((l) => / nodes done/.test(l));
    expect(progress.length).toBeGreaterThan(0);
    for (const line of progress)
      expect(line).toMatch(
        /run totals \d+ samples \(\d+ red-flagged\) · \d+\/\d+ nodes done \(known so far\)/,
      );
  });
});
