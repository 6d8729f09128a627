import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { MakerError } from '../../core/errors.js';

/** Runs git in a directory; resolves with stdout, rejects on a non-zero exit. */
export type GitIn = (dir: string, args: readonly string[]) => Promise<string>;

/**
 * The work trees (this one or linked ones, as `git worktree list` knows them) that have `branch`
 * checked out: a landing moves each along with the branch, or none of them is left at the old
 * head with the new one's changes showing as undone. Throws `git-land-busy` when a work tree is
 * rebasing or bisecting `branch` (HEAD detached meanwhile): git ends that work by moving the
 * branch itself, from where it was, so it must not move underneath. Reads only.
 */
export async function checkoutsOf(git: GitIn, dir: string, branch: string): Promise<string[]> {
  const ref = `refs/heads/${branch}`;
  const checkouts: string[] = [];
  for (const tree of parseWorktrees(await git(dir, ['worktree', 'list', '--porcelain', '-z']))) {
    if (tree.bare || tree.prunable) continue;
    if (tree.branch === ref) checkouts.push(tree.path);
    const gitDir = (await git(tree.path, ['rev-parse', '--absolute-git-dir'])).trim();
    const [merge, apply, bisect] = await Promise.all(
      ['rebase-merge/head-name', 'rebase-apply/head-name', 'BISECT_START'].map((name) =>
        readFile(join(gitDir, name), 'utf8').then(
          (text) => text.trim(),
          () => undefined,
        ),
      ),
    );
    const doing =
      merge === ref || apply === ref
        ? ['rebased', 'finish or abort the rebase']
        : bisect === branch || bisect === ref
          ? ['bisected', 'end the bisect (git bisect reset)']
          : undefined;
    if (doing !== undefined)
      throw new MakerError(
        'git-land-busy',
        `${branch} is being ${doing[0]} in ${tree.path}: ${doing[1]}, then resume to land the result. Nothing was changed.`,
      );
  }
  return checkouts;
}

interface Worktree {
  readonly path: string;
  readonly branch: string | undefined;
  readonly bare: boolean;
  readonly prunable: boolean;
}

/** `git worktree list --porcelain -z`: attributes NUL-terminated, work trees ended by an empty one. */
function parseWorktrees(out: string): Worktree[] {
  const trees: Worktree[] = [];
  let fields: string[] = [];
  for (const field of out.split('\0')) {
    if (field !== '') {
      fields.push(field);
      continue;
    }
    const path = fields.find((f) => f.startsWith('worktree '))?.slice('worktree '.length);
    if (path !== undefined)
      trees.push({
        path,
        branch: fields.find((f) => f.startsWith('branch '))?.slice('branch '.length),
        bare: fields.includes('bare'),
        prunable: fields.some((f) => f === 'prunable' || f.startsWith('prunable ')),
      });
    fields = [];
  }
  return trees;
}
