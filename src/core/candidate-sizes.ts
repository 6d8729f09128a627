import { inflateSync, constants } from 'node:zlib';
import { readUnifiedDiff, type DiffSection } from './unified-diff.js';

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
  return readUnifiedDiff(patch).map((section) => ({
    path: writtenPath(section),
    bytes: Math.max(addedBytes(section), binaryBytes(section)),
  }));
}

/** The path a section writes: its `+++` path, else the new path of its `diff --git` line. */
function writtenPath(section: DiffSection): string {
  if (typeof section.plusPath === 'string') return section.plusPath;
  if (section.gitPaths !== undefined) return section.gitPaths[1];
  return section.minusPath ?? '';
}

/** The bytes of a section's added hunk lines, each with its line end unless marked as having none. */
function addedBytes(section: DiffSection): number {
  let bytes = 0;
  for (const hunk of section.hunks) {
    hunk.lines.forEach((line, i) => {
      // The "+" stands for the line's "\n"; "\ No newline at end of file" takes it back.
      if (line.startsWith('+')) bytes += Buffer.byteLength(line, 'utf8');
      else if (line.startsWith('\\') && hunk.lines[i - 1]?.startsWith('+') === true) bytes -= 1;
    });
  }
  return bytes;
}

/** The new content's size a binary patch states (a `delta`'s from its header); 0 if unreadable. */
function binaryBytes(section: DiffSection): number {
  const binary = section.binaryPatch;
  if (binary === undefined) return 0;
  return (binary.method === 'literal' ? binary.size : deltaTargetSize(binary.data)) ?? 0;
}

/** The files of `sizes` over `maxBytes`, largest first. */
export function oversized(sizes: readonly WrittenSize[], maxBytes: number): WrittenSize[] {
  return [...sizes].filter((s) => s.bytes > maxBytes).sort((a, b) => b.bytes - a.bytes);
}

const B85 = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz!#$%&()*+-;<=>?@^_`{|}~';

/**
 * The target size a git binary delta states in its header (after its source size), from the
 * delta's first encoded lines; undefined when it cannot be read (git then refuses the patch).
 * Only the header is inflated, so a compressed bomb costs nothing here.
 */
function deltaTargetSize(lines: readonly string[]): number | undefined {
  const bytes: number[] = [];
  for (let i = 0; i < lines.length && i < 4; i++) {
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
