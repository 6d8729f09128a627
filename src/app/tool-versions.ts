import { describeGit } from '../adapters/git/git-binary.js';

/**
 * The programs MAKER runs, as found here (for `maker --version --verbose`): this Node.js, and the git
 * every repository operation starts (its path and version, or why it would not run).
 */
export async function toolVersions(): Promise<{ readonly node: string; readonly git: string }> {
  return { node: `${process.execPath} (${process.version})`, git: await describeGit() };
}
