import { build } from 'esbuild';

/**
 * `contents` (TypeScript that may import the sources by absolute path) bundled into one ES module
 * at `outfile`, for a test that runs it as a process of its own.
 */
export async function bundleScript(contents: string, outfile: string): Promise<string> {
  await build({
    stdin: { contents, resolveDir: process.cwd(), loader: 'ts' },
    bundle: true,
    platform: 'node',
    format: 'esm',
    outfile,
    logLevel: 'silent',
  });
  return outfile;
}
