import { constants } from 'node:fs';
import { access, realpath, stat } from 'node:fs/promises';
import { delimiter, join } from 'node:path';

/**
 * The first executable file `name` in the absolute directories of `path` (a PATH string or a list):
 * a relative entry (`.`, `node_modules/.bin`, a checkout's own `bin`) is never searched.
 */
export async function which(
  name: string,
  path: string | readonly string[],
): Promise<string | undefined> {
  const dirs = typeof path === 'string' ? path.split(delimiter) : path;
  for (const dir of dirs) {
    if (!dir.startsWith('/')) continue;
    const file = join(dir, name);
    const ok = await access(file, constants.X_OK).then(
      () => stat(file).then((s) => s.isFile()),
      () => false,
    );
    if (ok) return file;
  }
  return undefined;
}

/**
 * The real file of `file` when it is this process's own Node.js executable (what `node` there would
 * say of itself is known here, without starting it); undefined otherwise.
 */
export async function ownNodeAt(file: string): Promise<string | undefined> {
  const [real, own] = await Promise.all([
    realpath(file).catch(() => undefined),
    realpath(process.execPath).catch(() => undefined),
  ]);
  return real !== undefined && real === own ? real : undefined;
}
