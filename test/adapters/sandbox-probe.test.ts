import { execFile, execFileSync } from 'node:child_process';
import { mkdir, symlink } from 'node:fs/promises';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';
import { findSandbox, sandboxesFor } from '../../src/adapters/sandbox/bwrap.js';
import { maker } from '../helpers/cli.js';
import { useTempDirs } from '../helpers/tmp.js';

const tempDir = useTempDirs();
const execFileAsync = promisify(execFile);

/** Whether this kernel lets util-linux `unshare` make a user namespace (as the brief's probe). */
const userNamespaces = await execFileAsync('unshare', ['--user', '--map-root-user', 'true']).then(
  () => true,
  () => false,
);

/** A PATH holding only the named programs (links to this machine's), bubblewrap not among them. */
async function pathWith(...programs: string[]): Promise<string> {
  const bin = join(await tempDir(), 'bin');
  await mkdir(bin);
  for (const program of programs) {
    const found = execFileSync('sh', ['-c', `command -v ${program}`], { encoding: 'utf8' }).trim();
    await symlink(found, join(bin, program));
  }
  return bin;
}

describe('finding a sandbox', () => {
  it('MAKER_SANDBOX narrows the candidates; anything else means all, bubblewrap first', () => {
    expect(sandboxesFor('none')).toEqual([]);
    expect(sandboxesFor('unshare').map((s) => s.name)).toEqual(['unshare']);
    expect(sandboxesFor('bubblewrap').map((s) => s.name)).toEqual(['bubblewrap']);
    expect(sandboxesFor(undefined).map((s) => s.name)).toEqual(['bubblewrap', 'unshare']);
    expect(sandboxesFor('firejail').map((s) => s.name)).toEqual(['bubblewrap', 'unshare']);
  });

  it('finds none on a PATH with neither, nor when MAKER_SANDBOX is none', async () => {
    expect(await findSandbox(await pathWith('sh'), undefined)).toBeUndefined();
    expect(await findSandbox(process.env['PATH'] ?? '', 'none')).toBeUndefined();
  });

  it.skipIf(!userNamespaces)(
    'falls back to unshare on a PATH without bubblewrap (skipped where user namespaces are refused)',
    async () => {
      const sandbox = await findSandbox(await pathWith('sh', 'unshare', 'setpriv'), undefined);
      expect(sandbox?.name).toBe('unshare');
    },
  );

  it('maker doctor says which sandbox checks would run in, or that results would be unverified', async () => {
    const none = await maker(['doctor'], { PATH: await pathWith('sh') });
    expect(none.code).toBe(0);
    expect(none.stdout).toMatch(/No sandbox works here: .*UNVERIFIED/);
    expect(none.stdout).toMatch(/no +bubblewrap/);
    expect(none.stdout).toMatch(/no +unshare/);
    const unshare = await maker(['doctor', '--json'], { MAKER_SANDBOX: 'unshare' });
    expect(JSON.parse(unshare.stdout)).toMatchObject({
      sandbox: {
        chosen: userNamespaces ? 'unshare' : null,
        choice: 'unshare',
        sandboxes: [
          { name: 'bubblewrap', allowed: false },
          { name: 'unshare', allowed: true, works: userNamespaces },
        ],
      },
    });
  });

  it('maker sandbox says why no sandbox is used, and runs nothing', async () => {
    // Proves: the command that runs a check refuses (exit 3, nothing ran) with the reason (the demo
    // says the same reason: demo-output.test.ts).
    const dir = await tempDir();
    execFileSync('git', ['init', '-q', '-b', 'main', dir]);
    const off = { MAKER_SANDBOX: 'none' };
    const refused = await maker(['sandbox', 'echo ran', '--dir', dir], off);
    expect(refused.code, refused.stderr).toBe(3);
    expect(refused.stdout).not.toContain('ran');
    expect(refused.stderr).toContain(
      'maker: Checks are off: MAKER_SANDBOX is "none" (unset it to use bubblewrap or unshare): nothing ran.',
    );
  });
});
