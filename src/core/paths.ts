/**
 * Repository-relative paths as untrusted input (a model's edits, a tool argument): what is
 * normalised, and what is refused. Pure functions; the one place this policy lives.
 */

/** `.git` as git and the file systems it runs on may spell it: any case, trailing dots or spaces, NTFS `GIT~1`. */
export function isGitDirName(segment: string): boolean {
  const s = segment.toLowerCase().replace(/[. ]+$/, '');
  return s === '.git' || /^git~\d+$/.test(s);
}

/**
 * C0 and C1 control characters, Unicode's bidirectional controls and its zero-width characters:
 * each can disguise a name, and HFS+ ignores the zero-width ones (`.g\u200cit` is `.git` there;
 * `git fsck` says `hasDotgit`).
 */
const INVISIBLE =
  // eslint-disable-next-line no-control-regex
  /[\u0000-\u001f\u007f-\u009f\u061c\u200b-\u200f\u202a-\u202e\u2060-\u2064\u2066-\u206f\ufeff]/u;

const MAX_SEGMENT_BYTES = 255;
const MAX_PATH_BYTES = 4096;

/**
 * A repository-relative path with the harmless spellings models produce made canonical: a leading
 * `./`, doubled slashes and `.` segments. Returns the reason instead when the path is unsafe:
 * empty, absolute, climbing out with `..`, into a `.git` directory, with a backslash, a control or
 * bidi character, or too long.
 */
export function normalizeRepoPath(
  raw: string,
): { readonly ok: true; readonly path: string } | { readonly ok: false; readonly reason: string } {
  if (raw.includes('\0')) return { ok: false, reason: 'a path with a NUL byte' };
  if (INVISIBLE.test(raw))
    return {
      ok: false,
      reason: 'a path with a control, bidirectional-text or zero-width character',
    };
  if (raw.includes('\\'))
    return { ok: false, reason: 'a path with a backslash (not a portable separator)' };
  if (raw.startsWith('/') || /^[A-Za-z]:/.test(raw))
    return { ok: false, reason: 'an absolute path' };
  const segments = raw.split('/').filter((s) => s !== '' && s !== '.');
  if (segments.length === 0) return { ok: false, reason: 'an empty path' };
  if (raw.endsWith('/')) return { ok: false, reason: 'a directory, not a file' };
  if (segments.includes('..'))
    return { ok: false, reason: 'a path that climbs out of the repository' };
  if (segments.some(isGitDirName)) return { ok: false, reason: 'a path inside .git' };
  const path = segments.join('/');
  if (segments.some((s) => Buffer.byteLength(s) > MAX_SEGMENT_BYTES))
    return { ok: false, reason: `a file name over ${MAX_SEGMENT_BYTES} bytes` };
  if (Buffer.byteLength(path) > MAX_PATH_BYTES)
    return { ok: false, reason: `a path over ${MAX_PATH_BYTES} bytes` };
  return { ok: true, path };
}

/** A path as it can be shown safely: quoted, with control, bidi and zero-width characters escaped. */
export function showPath(path: string): string {
  return JSON.stringify(path).replace(
    new RegExp(INVISIBLE.source, 'gu'),
    (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`,
  );
}

/** Why a path (as git stores it, already canonical) is unsafe to write, or undefined. */
export function unsafePathReason(path: string): string | undefined {
  const normal = normalizeRepoPath(path);
  if (!normal.ok) return normal.reason;
  if (normal.path !== path) return 'a path that is not in canonical form';
  return undefined;
}

/**
 * Whether `path` is inside the declared scope: an entry matches exactly, as a directory prefix
 * (`src/` or `src`), or as a glob (`*` within a segment, `**` across segments).
 */
export function inScope(path: string, scope: readonly string[]): boolean {
  return scope.some((entry) => {
    const pattern = entry.replace(/^\.\//, '');
    if (pattern === path || pattern === '.' || pattern === '**') return true;
    if (!/[*?]/.test(pattern))
      return path.startsWith(pattern.endsWith('/') ? pattern : `${pattern}/`);
    return globToRegExp(pattern).test(path);
  });
}

function globToRegExp(glob: string): RegExp {
  let out = '';
  for (let i = 0; i < glob.length; i++) {
    const c = glob[i] as string;
    if (c === '*' && glob[i + 1] === '*') {
      out += glob[i + 2] === '/' ? '(?:.*/)?' : '.*';
      i += glob[i + 2] === '/' ? 2 : 1;
    } else if (c === '*') out += '[^/]*';
    else if (c === '?') out += '[^/]';
    else out += c.replace(/[.+^${}()|[\]\\]/g, '\\$&');
  }
  return new RegExp(`^${out}$`);
}

/** MAKER's own files in a workspace (state, its log and backups, lock, journal, calibration). */
export const MAKER_FILE = /^\.?maker-(state\.json[.a-z0-9]*|journal\.jsonl|calibration\.json)$/;
