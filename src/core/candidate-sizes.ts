import { inflateSync, constants } from 'node:zlib';

/**
 * What a worker's output says of the sizes of the files it writes, read before anything of it is
 * written (no blob, no object, no scratch file): a hostile candidate cannot fill the disk with
 * files the run's size limit would refuse anyway. Pure functions over the worker's text.
 */

/** A file a candidate writes and a lower bound of its new size in bytes. */
export interface WrittenSize {
  readonly path: string;
  readonly bytes: number;
}

/** Whole-file edits: each written file's exact size (UTF-8). */
export function editSizes(
  edits: readonly { path: string; content: string | null }[],
): WrittenSize[] {
  return edits.flatMap((e) =>
    e.content === null ? [] : [{ path: e.path, bytes: Buffer.byteLength(e.content, 'utf8') }],
  );
}

/**
 * A unified diff: for each file section, a lower bound of the size the file has after the patch,
 * never more than it will have: the bytes of its added lines (each is in the new file, with its
 * line end), or a binary patch's stated size (`literal N` is the new content's size; a `delta`'s
 * target size is read from its header). git refuses a binary patch whose content disagrees with
 * its stated size, so neither can be understated.
 */
export function patchSizes(patch: string): WrittenSize[] {
  const sizes: { path: string; bytes: number }[] = [];
  let current: { path: string; bytes: number } | undefined;
  // Lines left in the hunk being read (old side, new side): a hunk's `+++ x` line is content.
  let oldLeft = 0;
  let newLeft = 0;
  const lines = patch.split('\n');
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i] as string;
    if (line.startsWith('\\')) {
      // "\ No newline at end of file" (also after a hunk's last line): that line has no line end.
      if (current !== undefined && lines[i - 1]?.startsWith('+') === true) current.bytes -= 1;
      continue;
    }
    if (oldLeft > 0 || newLeft > 0) {
      if (line.startsWith('+')) {
        newLeft -= 1;
        if (current !== undefined) current.bytes += Buffer.byteLength(line, 'utf8'); // the "+" stands for its "\n"
      } else if (line.startsWith('-')) oldLeft -= 1;
      else {
        oldLeft -= 1;
        newLeft -= 1;
      }
      continue;
    }
    if (line.startsWith('diff --git ') || (line.startsWith('--- ') && current === undefined)) {
      current = { path: sectionPath(line), bytes: 0 };
      sizes.push(current);
      continue;
    }
    if (line.startsWith('+++ ') && current !== undefined) {
      current.path = headerPath(line.slice(4)) ?? current.path;
      continue;
    }
    const hunk = /^@@ -\d+(?:,(\d+))? \+\d+(?:,(\d+))? @@/.exec(line);
    if (hunk !== null) {
      oldLeft = Number(hunk[1] ?? '1');
      newLeft = Number(hunk[2] ?? '1');
      continue;
    }
    if (line === 'GIT binary patch' && current !== undefined) {
      const method = /^(literal|delta) (\d+)$/.exec(lines[i + 1] ?? '');
      if (method === null) continue;
      const stated = Number(method[2]);
      const size = method[1] === 'literal' ? stated : deltaTargetSize(lines, i + 2);
      // Only the forward patch counts: the reverse one that follows describes the old content.
      current.bytes = Math.max(current.bytes, size ?? 0);
      // Skip this binary section (to its blank line), and the reverse one after it.
      let j = i + 2;
      while (j < lines.length && lines[j] !== '') j++;
      if (/^(literal|delta) \d+$/.test(lines[j + 1] ?? '')) {
        j += 2;
        while (j < lines.length && lines[j] !== '') j++;
      }
      i = j;
    }
  }
  return sizes;
}

/** The files of `sizes` over `maxBytes`, largest first. */
export function oversized(sizes: readonly WrittenSize[], maxBytes: number): WrittenSize[] {
  return [...sizes].filter((s) => s.bytes > maxBytes).sort((a, b) => b.bytes - a.bytes);
}

function sectionPath(line: string): string {
  const git = /^diff --git (\S+|"(?:[^"\\]|\\.)*") (\S+|"(?:[^"\\]|\\.)*")$/.exec(line);
  if (git !== null) return strip(git[2] as string);
  return headerPath(line.slice(4)) ?? '';
}

function headerPath(spec: string): string | undefined {
  const path = spec.split('\t')[0] as string;
  return path === '/dev/null' ? undefined : strip(path);
}

function strip(path: string): string {
  const unquoted = path.startsWith('"') ? path.slice(1, -1) : path;
  return unquoted.startsWith('a/') || unquoted.startsWith('b/') ? unquoted.slice(2) : unquoted;
}

const B85 = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz!#$%&()*+-;<=>?@^_`{|}~';

/**
 * The target size a git binary delta states in its header (after its source size), from the
 * delta's first encoded lines; undefined when it cannot be read (git then refuses the patch).
 * Only the header is inflated, so a compressed bomb costs nothing here.
 */
function deltaTargetSize(lines: readonly string[], from: number): number | undefined {
  const bytes: number[] = [];
  for (let i = from; i < lines.length && i < from + 4; i++) {
    const line = lines[i] as string;
    if (line === '') break;
    const decoded = base85Line(line);
    if (decoded === undefined) return undefined;
    bytes.push(...decoded);
  }
  let header: Buffer;
  try {
    header = inflateSync(Buffer.from(bytes), {
      finishFlush: constants.Z_SYNC_FLUSH,
      maxOutputLength: 1 << 16,
    });
  } catch {
    return undefined;
  }
  let at = 0;
  const varint = (): number | undefined => {
    let value = 0;
    let shift = 0;
    for (;;) {
      const byte = header[at++];
      if (byte === undefined) return undefined;
      value += (byte & 0x7f) * 2 ** shift;
      shift += 7;
      if ((byte & 0x80) === 0) return value;
    }
  };
  return varint() === undefined ? undefined : varint();
}

/** One line of git's base85: a length character (A–Z 1–26, a–z 27–52 bytes), then 5 characters per 4 bytes. */
function base85Line(line: string): number[] | undefined {
  const c = line.charCodeAt(0);
  const length = c >= 65 && c <= 90 ? c - 64 : c >= 97 && c <= 122 ? c - 96 + 26 : 0;
  if (length === 0) return undefined;
  const out: number[] = [];
  for (let at = 1; at + 5 <= line.length && out.length < length; at += 5) {
    let value = 0;
    for (let k = 0; k < 5; k++) {
      const digit = B85.indexOf(line[at + k] as string);
      if (digit < 0) return undefined;
      value = value * 85 + digit;
    }
    out.push((value >>> 24) & 0xff, (value >>> 16) & 0xff, (value >>> 8) & 0xff, value & 0xff);
  }
  return out.slice(0, length);
}
