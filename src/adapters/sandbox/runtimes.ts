import { execFile } from 'node:child_process';
import { delimiter } from 'node:path';
import { promisify } from 'node:util';
import { ownNodeAt, which } from './which.js';

const execFileAsync = promisify(execFile);

/** Runtimes a check may find on the PATH, each with its own test runner, as the planner is told. */
const RUNTIMES = [
  { file: 'node', args: ['--version'], name: 'Node.js', runner: 'node --test' },
  { file: 'python3', args: ['--version'], name: 'Python', runner: 'python3 -m unittest' },
] as const;

const probes = new Map<string, Promise<string[]>>();

/**
 * The runtimes on `path` (probed once per PATH, each by its version): `Node.js v20.11.0 (node
 * --test)`. A runtime that is missing, or does not answer within 10 s, is not listed.
 */
export function findRuntimes(path: string): Promise<string[]> {
  let probe = probes.get(path);
  if (probe === undefined) {
    probe = Promise.all(
      RUNTIMES.map(async (r) => {
        const own = r.file === 'node' ? await ownNodeOn(path) : undefined;
        if (own !== undefined) return [`${r.name} ${own} (${r.runner})`];
        return execFileAsync(r.file, [...r.args], { timeout: 10_000, env: { PATH: path } }).then(
          ({ stdout, stderr }) => {
            const version = `${stdout}${stderr}`.trim().split(/\s+/).pop() ?? '';
            return [`${r.name} ${version} (${r.runner})`];
          },
          () => [],
        );
      }),
    ).then((found) => found.flat());
    probes.set(path, probe);
  }
  return probe;
}

/**
 * This process's Node.js version when `node` on `path` is this very executable (so `node --version`
 * would print it), found without starting it; undefined otherwise. Only for a PATH of absolute
 * directories, where the lookup is {@link which}'s.
 */
async function ownNodeOn(path: string): Promise<string | undefined> {
  const dirs = path.split(delimiter);
  if (dirs.some((d) => !d.startsWith('/'))) return undefined;
  const found = await which('node', dirs);
  if (found === undefined) return undefined;
  return (await ownNodeAt(found)) === undefined ? undefined : process.version;
}
