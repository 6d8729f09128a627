import { spawn } from 'node:child_process';
import { MakerError } from '../../core/errors.js';

/** A minimal, predictable environment for git: no inherited GIT_* (a hook's GIT_DIR would redirect it), no pager, no prompts. */
export function gitEnv(extra: Readonly<Record<string, string>> = {}): Record<string, string> {
  const env: Record<string, string> = { LC_ALL: 'C', GIT_TERMINAL_PROMPT: '0' };
  for (const key of ['PATH', 'HOME', 'TMPDIR', 'SYSTEMROOT']) {
    const value = process.env[key];
    if (value !== undefined) env[key] = value;
  }
  return { ...env, ...extra };
}

/**
 * Runs `git -C dir …args` with `input` on stdin; resolves with stdout as bytes (binary safe).
 * A non-zero exit rejects with a `git` error carrying the first line of stderr.
 */
export function runGit(
  dir: string,
  args: readonly string[],
  options: { input?: string | Uint8Array; env?: Readonly<Record<string, string>> } = {},
): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const child = spawn('git', ['-C', dir, ...args], {
      env: gitEnv(options.env),
      stdio: ['pipe', 'pipe', 'pipe'],
    });
    const out: Buffer[] = [];
    const err: Buffer[] = [];
    child.stdout.on('data', (chunk: Buffer) => out.push(chunk));
    child.stderr.on('data', (chunk: Buffer) => err.push(chunk));
    child.on('error', reject);
    child.on('close', (code) => {
      if (code === 0) return resolve(Buffer.concat(out));
      const stderr = Buffer.concat(err).toString('utf8');
      const first = stderr.split('\n').find((l) => l.trim() !== '') ?? `exit status ${code}`;
      reject(
        new MakerError('git', `git ${args[0] ?? ''} failed: ${first.trim()}`, {
          cause: new Error(stderr),
        }),
      );
    });
    child.stdin.on('error', () => undefined); // git may exit before reading all of stdin
    child.stdin.end(options.input ?? '');
  });
}

/** Parses `git cat-file --batch` output: `<id> <type> <size>\n<content>\n` records, `<id> missing\n` skipped. */
export function parseCatFileBatch(out: Buffer): Map<string, { type: string; content: Buffer }> {
  const objects = new Map<string, { type: string; content: Buffer }>();
  let at = 0;
  while (at < out.length) {
    const eol = out.indexOf(0x0a, at);
    if (eol < 0) break;
    const [id, type, size] = out.subarray(at, eol).toString('utf8').split(' ');
    at = eol + 1;
    if (id === undefined || type === undefined || size === undefined) continue; // "<id> missing"
    const length = Number(size);
    objects.set(id, { type, content: out.subarray(at, at + length) });
    at += length + 1;
  }
  return objects;
}
