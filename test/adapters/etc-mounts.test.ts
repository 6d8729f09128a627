import { chmod, mkdir, symlink, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { etcMounts } from '../../src/adapters/sandbox/host-view.js';
import { useTempDirs } from '../helpers/tmp.js';

const tempDir = useTempDirs();

describe('what of /etc a check sees (etcMounts, on a stand-in /etc)', () => {
  it('hides what others cannot read and what holds credentials, outermost first; links stay', async () => {
    const etc = await tempDir();
    await writeFile(join(etc, 'hostname'), 'box\n');
    await writeFile(join(etc, 'shadow'), 'root:x\n');
    await chmod(join(etc, 'shadow'), 0o640);
    await writeFile(join(etc, 'npmrc'), '//registry/:_authToken=x\n'); // world-readable, a credential
    await mkdir(join(etc, 'ssl', 'private'), { recursive: true });
    await writeFile(join(etc, 'ssl', 'private', 'key.pem'), 'k');
    await mkdir(join(etc, 'sec'), { mode: 0o750 }); // not enterable: hidden whole
    await writeFile(join(etc, 'sec', 'inner'), 'x');
    await mkdir(join(etc, 'deep', 'er'), { recursive: true });
    await writeFile(join(etc, 'deep', 'er', 'secret'), 's', { mode: 0o600 });
    await writeFile(join(etc, 'deep', 'er', 'open'), 'o');
    // A file where a credential's directory would be (`containers/auth.json`): nothing to hide.
    await writeFile(join(etc, 'containers'), 'not a directory\n');
    // Links are kept as links, whatever they point to: inside the sandbox they resolve in its view.
    await symlink(join(etc, 'shadow'), join(etc, 'shadow-link'));
    await symlink('sec', join(etc, 'sec-link'));

    const mounts = await etcMounts(etc);
    expect(mounts[0]).toEqual({ kind: 'ro-bind', source: etc, target: '/etc' });
    expect(mounts.slice(1)).toEqual([
      { kind: 'hide', path: '/etc/deep/er/secret', directory: false },
      { kind: 'hide', path: '/etc/npmrc', directory: false },
      { kind: 'hide', path: '/etc/sec', directory: true },
      { kind: 'hide', path: '/etc/shadow', directory: false },
      { kind: 'hide', path: '/etc/ssl/private', directory: true },
    ]);
  });

  it('is read again each time: a credential file made after one read is hidden from the next', async () => {
    const etc = await tempDir();
    await writeFile(join(etc, 'hostname'), 'box\n');
    expect((await etcMounts(etc)).slice(1)).toEqual([]);
    await writeFile(join(etc, 'netrc'), 'machine x login y password z\n');
    await writeFile(join(etc, 'later'), 'x', { mode: 0o600 });
    expect((await etcMounts(etc)).slice(1)).toEqual([
      { kind: 'hide', path: '/etc/later', directory: false },
      { kind: 'hide', path: '/etc/netrc', directory: false },
    ]);
  });
});
