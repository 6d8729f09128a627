import { execFile } from 'node:child_process';
import { promisify } from 'node:util';

const execFileAsync = promisify(execFile);

/** The tools an install command may use, and how each says its version. */
const TOOLS: Record<string, readonly string[]> = {
  npm: ['npm', '--version'],
  pnpm: ['pnpm', '--version'],
  yarn: ['yarn', '--version'],
  python3: ['python3', '-c', 'import sys, pip; print(sys.version.split()[0], pip.__version__)'],
  uv: ['uv', '--version'],
  go: ['go', 'version'],
};

const versions = new Map<string, Promise<string>>();

/**
 * The versions of the tools `command` names (run once per PATH: the person's own tools, with
 * their PATH), so that another npm or pip makes another cache entry. A tool that is missing or
 * does not answer within 10 s is `missing`.
 */
export async function toolVersions(command: string, path: string): Promise<Record<string, string>> {
  const named = Object.keys(TOOLS).filter((t) => new RegExp(`(^|[\\s;&|(])${t}\\s`).test(command));
  const found = await Promise.all(
    named.map(async (tool) => {
      const key = `${tool}\0${path}`;
      let version = versions.get(key);
      if (version === undefined) {
        const [file, ...args] = TOOLS[tool] as readonly string[];
        version = execFileAsync(file as string, args, {
          timeout: 10_000,
          env: { PATH: path },
        }).then(
          ({ stdout }) => stdout.trim(),
          () => 'missing',
        );
        versions.set(key, version);
      }
      return [tool, await version] as const;
    }),
  );
  return Object.fromEntries(found);
}
