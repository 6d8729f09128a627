import { execFileSync } from 'node:child_process';

/** Makes `dir` a git repository (branch `main`) with one empty commit, by a throw-away identity. */
export function initCommitted(dir: string, message = 'start'): string {
  const git = (...args: string[]) => execFileSync('git', args, { cwd: dir, stdio: 'ignore' });
  git('init', '-q', '-b', 'main');
  git(
    '-c',
    'user.name=t',
    '-c',
    'user.email=t@example.com',
    'commit',
    '-q',
    '--allow-empty',
    '-m',
    message,
  );
  return dir;
}
