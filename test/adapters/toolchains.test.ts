import { chmod, mkdir, symlink, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { findToolchains } from '../../src/adapters/sandbox/toolchains.js';
import { useTempDirs } from '../helpers/tmp.js';

const tempDir = useTempDirs();

/** A program installed as npm installs one globally: a link in `<prefix>/bin` to a script in its package. */
async function npmInstalled(prefix: string, name: string): Promise<void> {
  const script = join(prefix, 'lib', 'node_modules', name, 'bin', `${name}.cjs`);
  await mkdir(join(script, '..'), { recursive: true });
  await writeFile(script, '#!/usr/bin/env node\n');
  await chmod(script, 0o755);
  await mkdir(join(prefix, 'bin'), { recursive: true });
  await symlink(`../lib/node_modules/${name}/bin/${name}.cjs`, join(prefix, 'bin', name));
}

describe('the toolchains a sandbox shows', () => {
  it('a program npm installed globally (`bin/pnpm` -> `lib/node_modules/pnpm/bin/pnpm.cjs`) is on the PATH inside by its own name', async () => {
    const prefix = await tempDir();
    const home = await tempDir();
    await npmInstalled(prefix, 'pnpm');
    const found = await findToolchains(`${join(prefix, 'bin')}:/usr/bin:/bin`, home);
    // The PATH inside leads to the link named `pnpm`, not to the package's own `bin` holding `pnpm.cjs`.
    expect(found.pathDirs).toContain(join(prefix, 'bin'));
    expect(found.pathDirs).not.toContain(join(prefix, 'lib', 'node_modules', 'pnpm', 'bin'));
    expect(found.found).toContainEqual({ name: 'pnpm', file: join(prefix, 'bin', 'pnpm') });
    const targets = found.mounts.map((m) => (m.kind === 'ro-bind' ? m.target : ''));
    expect(targets).toEqual(expect.arrayContaining([join(prefix, 'bin'), join(prefix, 'lib')]));
  });

  it('a program installed under a private place of the home is not shown, nor put on the PATH', async () => {
    const home = await tempDir();
    const prefix = join(home, '.config', 'tools');
    await npmInstalled(prefix, 'yarn');
    const found = await findToolchains(`${join(prefix, 'bin')}:/usr/bin:/bin`, home);
    expect(found.pathDirs.filter((d) => d.startsWith(home))).toEqual([]);
    const shown = found.mounts.flatMap((m) => (m.kind === 'ro-bind' ? [m.source, m.target] : []));
    expect(shown.filter((p) => p.startsWith(home))).toEqual([]);
  });
});
