import { execFile } from 'node:child_process';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { promisify } from 'node:util';
import { build } from 'esbuild';
import { afterEach, describe, expect, it } from 'vitest';
import { readingRoute } from '../../scripts/route.mjs';

/**
 * The reading route that `scripts/walk.mjs` reports (scripts/route.mjs): a small program is
 * bundled as `npm run build` bundles maker (one ESM file, source maps), run under V8's coverage,
 * and its route read back through the source maps and TypeScript's checker.
 */

const FILES: Record<string, string> = {
  'tsconfig.json': JSON.stringify({
    compilerOptions: { module: 'NodeNext', moduleResolution: 'NodeNext', strict: true },
    include: ['src'],
  }),
  'src/entry.ts': `import { two } from './b/two.js'; // imports are not followed: uses are
import { one } from './a/one.js';
import { Impl } from './c/impl.js';
import type { Port } from './c/port.js';

one();
two();
one();
const port: Port = new Impl();
port.go();
const { late } = await import('./c/late.js');
late();
`,
  'src/a/one.ts': `import { helper } from '../b/two.js';

export function one(): number {
  helper();
  return local();
}

function local(): number {
  return 1;
}

export function never(): void {}
`,
  'src/b/two.ts': `export function two(): void {}

export function helper(): void {}
`,
  'src/c/port.ts': `export interface Port {
  go(): void;
}
`,
  'src/c/impl.ts': `import type { Port } from './port.js';
import { two } from '../b/two.js';

export class Impl implements Port {
  go(): void {
    two();
  }
}
`,
  'src/c/late.ts': `import { helper } from '../b/two.js';

export function late(): void {
  helper();
}
`,
};

let root: string | undefined;
afterEach(async () => {
  if (root !== undefined) await rm(root, { recursive: true, force: true });
  root = undefined;
});

async function routeOf(): Promise<ReturnType<typeof readingRoute>> {
  root = await mkdtemp(join(tmpdir(), 'maker-route-'));
  for (const [path, text] of Object.entries(FILES)) {
    await mkdir(dirname(join(root, path)), { recursive: true });
    await writeFile(join(root, path), text);
  }
  await build({
    entryPoints: [join(root, 'src/entry.ts')],
    bundle: true,
    format: 'esm',
    platform: 'node',
    splitting: true,
    sourcemap: true,
    outdir: join(root, 'dist'),
    logLevel: 'silent',
  });
  await promisify(execFile)(process.execPath, [join(root, 'dist/entry.js')], {
    env: { NODE_V8_COVERAGE: join(root, 'coverage') },
  });
  return readingRoute(join(root, 'coverage'), root, 'src/entry.ts');
}

describe('the reading route of a run', () => {
  it('reads each function that ran once, in the order the code refers to it, through interfaces and dynamic imports', async () => {
    const route = await routeOf();
    expect(route.stops).toEqual([
      'src/entry.ts',
      'src/a/one.ts', // one(): its first reference, helper, is elsewhere
      'src/b/two.ts',
      'src/a/one.ts', // back to read local(), a return
      'src/entry.ts', // back for two(), a return; the second one() is read already
      'src/b/two.ts',
      'src/entry.ts',
      'src/c/impl.ts', // port.go(): the class that implements Port; its two() is read already
      'src/entry.ts',
      'src/c/late.ts', // the dynamic import's module: what of it ran
    ]);
    expect(route.units).toEqual({ ran: 6, read: 6 }); // never() did not run
    expect(route.byFile).toEqual({ rooms: 5, stops: 10, returns: 5 });
    expect(route.byFolder).toEqual({ rooms: 4, stops: 10, returns: 6 });
    expect(route.unread).toEqual([]);
    expect(route.returning[0]).toEqual(['src/entry.ts', 3]);
  });
});
