import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdir } from 'node:fs/promises';
import { join } from 'node:path';
import { promisify } from 'node:util';

const run = promisify(execFile);

/**
 * The real `gemini` binary for the end-to-end tests: npm `@google/gemini-cli` at `version`,
 * installed once into `cache` (never into the project's dependencies) — the only time the test
 * suite uses the npm registry. When it cannot be installed, the reason, so the tests can skip
 * saying why; with `MAKER_E2E=1` (CI) that is an error instead.
 */
export async function geminiBinary(options: {
  cache: string;
  version: string;
  env?: NodeJS.ProcessEnv;
}): Promise<{ path: string } | { skip: string }> {
  const env = options.env ?? process.env;
  const path = join(options.cache, 'node_modules', '.bin', 'gemini');
  if (existsSync(path)) return { path };
  try {
    await mkdir(options.cache, { recursive: true });
    await run(
      'npm',
      [
        'install',
        '--no-audit',
        '--no-fund',
        '--fetch-retries=1',
        '--fetch-retry-mintimeout=2000',
        '--prefix',
        options.cache,
        `@google/gemini-cli@${options.version}`,
      ],
      { timeout: 300_000, env },
    );
    if (existsSync(path)) return { path };
    throw new Error(`npm installed no ${path}`);
  } catch (error) {
    const why = `the end-to-end tests need the real gemini binary, installed once from the npm registry (@google/gemini-cli@${options.version} into ${options.cache}), and that failed: ${firstLine(error)}`;
    if (env['MAKER_E2E'] === '1')
      throw new Error(`MAKER_E2E=1 requires the end-to-end tests: ${why}`, { cause: error });
    return { skip: `${why}. Skipping them; set MAKER_E2E=1 to make this a failure.` };
  }
}

function firstLine(error: unknown): string {
  const e = error as { stderr?: string; message?: string };
  const text = `${e.stderr ?? ''}\n${e.message ?? String(error)}`;
  return (
    text
      .split('\n')
      .map((l) => l.trim())
      .find((l) => /error/i.test(l) && !/warn/i.test(l)) ??
    text.split('\n').find((l) => l.trim() !== '') ??
    'unknown error'
  ).slice(0, 300);
}
