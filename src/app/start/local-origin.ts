import { join } from 'node:path';
import type { GitWorkspace } from '../../adapters/git/git-workspace.js';

/** A local bare repository as `origin` (the demo's stand-in for GitHub), with the default branch pushed. */
export async function addLocalOrigin(workspace: GitWorkspace): Promise<void> {
  if ((await workspace.remoteUrl('origin')) !== undefined) return;
  const origin = join(await workspace.gitDir(), 'maker-demo-origin.git');
  await workspace.addBareOrigin(origin);
}
