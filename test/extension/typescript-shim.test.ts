import { execFileSync } from 'node:child_process';
import { copyFileSync, mkdirSync, readdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { useTempDirs } from '../helpers/tmp.js';

const tempDir = useTempDirs();

/**
 * dist/typescript.js, the module the bundles load the TypeScript compiler through (built from
 * scripts/typescript-shim.js): it keeps V8's code cache beside the compiler and never lets the
 * cache decide what runs. Proves: the first load makes the cache and later loads use it; a damaged
 * cache is refused and made again; a cache that cannot be written leaves the compiler working.
 */
describe('the TypeScript compiler as the bundles load it', () => {
  /** A copy of the built files, so the test's caches are its own. */
  async function copy(): Promise<string> {
    const dir = await tempDir();
    for (const file of ['typescript.js', 'typescript.cjs', 'package.json'])
      copyFileSync(join('dist', file), join(dir, file));
    return dir;
  }
  /** Loads the compiler in a fresh process: how the cache served it, and a parse through it. */
  const load = (dir: string) =>
    execFileSync(
      process.execPath,
      [
        '--input-type=module',
        '-e',
        `const m = await import(${JSON.stringify(join(dir, 'typescript.js'))});
         const sf = m.default.createSourceFile('a.ts', 'export const a: number = 1;', m.default.ScriptTarget.Latest);
         console.log(m.codeCache, sf.statements.length);`,
      ],
      { encoding: 'utf8' },
    ).trim();
  const caches = (dir: string) => readdirSync(dir).filter((f) => f.endsWith('.v8-cache'));

  it('makes its code cache on first use, uses it after, and makes it again when V8 refuses it', async () => {
    const dir = await copy();
    expect(load(dir)).toBe('made 1');
    expect(caches(dir)).toHaveLength(1);
    expect(load(dir)).toBe('used 1');
    writeFileSync(join(dir, caches(dir)[0] ?? ''), 'not a code cache');
    expect(load(dir)).toBe('remade 1');
    expect(load(dir)).toBe('used 1');
    expect(readdirSync(dir).filter((f) => f.endsWith('.tmp'))).toEqual([]);
  });

  it('loads without a cache where it cannot write one', async () => {
    // The cache's name, as a first load elsewhere makes it.
    const elsewhere = await copy();
    expect(load(elsewhere)).toBe('made 1');
    const [name = ''] = caches(elsewhere);
    // Here that name is a folder that is not empty: no cache can be written in its place.
    const dir = await copy();
    mkdirSync(join(dir, name));
    writeFileSync(join(dir, name, 'keep'), '');
    expect(load(dir)).toBe('off 1');
    expect(load(dir)).toBe('off 1');
    expect(readdirSync(dir).filter((f) => f.endsWith('.tmp'))).toEqual([]);
  });
});
