import { cleanDependencies } from '../../../app/clean-dependencies.js';

/**
 * `maker doctor --clean-deps`: removes the dependency cache of the repository at `dir` (see
 * {@link cleanDependencies}). Returns what it says.
 */
export async function cleanDependenciesSaid(dir: string | undefined): Promise<string> {
  const cleaned = await cleanDependencies(dir);
  if (!cleaned.removed)
    return `No dependency cache in ${cleaned.repo} (${cleaned.root} does not exist).`;
  const { repo, root, entries, bytes } = cleaned;
  return `Removed the dependency cache of ${repo}: ${entries} entr${entries === 1 ? 'y' : 'ies'}, ${(bytes / (1024 * 1024)).toFixed(1)} MiB (${root}). The next check that needs them installs them again.`;
}
