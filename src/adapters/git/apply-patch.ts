import { rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { MakerError } from '../../core/errors.js';
import type { ApplyResult } from '../../ports/workspace.js';
import type { GitLauncher } from './git-launcher.js';
import { gitText } from './run-git.js';
import { scratchDir } from './scratch.js';

/**
 * The tree of `base` after a unified diff, in a throw-away index under `scratchRoot`: `read-tree`,
 * `apply --cached`, `write-tree`, with `env` added (where objects are written: a scratch store).
 * A patch git refuses is an answer (`ok: false`), git that did not run to its end an error.
 */
export async function applyInIndex(
  dir: string,
  scratchRoot: string,
  base: string,
  patch: string,
  env: Readonly<Record<string, string>>,
  launcher: GitLauncher,
): Promise<ApplyResult> {
  const scratch = await scratchDir(scratchRoot, 'index');
  try {
    const withIndex = { ...env, GIT_INDEX_FILE: join(scratch, 'index') };
    const git = (args: readonly string[]) => gitText(dir, args, { env: withIndex, launcher });
    await git(['read-tree', base]);
    const file = join(scratch, 'candidate.patch');
    await writeFile(file, patch.endsWith('\n') ? patch : `${patch}\n`);
    try {
      await git(['apply', '--cached', '--whitespace=nowarn', file]);
    } catch (error) {
      // git that did not run to its end is a transport failure, never the patch's fault.
      if (error instanceof MakerError && error.code === 'git-transport') throw error;
      return { ok: false, reason: firstLine((error as Error).message) };
    }
    return { ok: true, tree: (await git(['write-tree'])).trim() };
  } finally {
    await rm(scratch, { recursive: true, force: true });
  }
}

/** The first non-blank line of `text`, trimmed. */
export function firstLine(text: string): string {
  return (
    text
      .split('\n')
      .find((line) => line.trim() !== '')
      ?.trim() ?? ''
  );
}
