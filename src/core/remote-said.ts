/**
 * What a git remote said to a push (a pre-receive hook's reason: git's `remote:` lines), as a
 * sentence to append to a refusal; empty when it said nothing. At most 20 lines.
 */
export function remoteSaid(stderr: string): string {
  const lines = stderr
    .split('\n')
    .filter((l) => l.startsWith('remote:'))
    .map((l) => l.slice('remote:'.length).trim())
    .filter((l) => l !== '')
    .slice(0, 20);
  return lines.length === 0 ? '' : ` The remote said: ${lines.join(' / ')}`;
}

/** git's last `n` lines of stderr that are not the remote's, then what the remote said. */
export function gitSaid(stderr: string, n: number): string {
  const own = stderr
    .trim()
    .split('\n')
    .filter((l) => !l.startsWith('remote:'))
    .slice(-n)
    .join(' ');
  return `${own}${remoteSaid(stderr)}`;
}
