import { z } from 'zod';

/**
 * The fenced edit format: each file a worker writes is a `File: <path>` line, then the file's whole
 * content in a fenced block; one ```json block at the end carries what is not a file (the summary,
 * paths to delete, files it needs). Code travels as plain text, never escaped into a JSON string.
 *
 * The parser is strict, because a slip in the fences silently moves text between files: a block
 * without its `File:` line, a block left open, text outside a block after the first file (what a
 * ``` line inside a file's content leaves behind when the file is fenced with only three
 * backticks), a line opening a fenced block inside a block (a closing fence is missing before it,
 * or the file holds backtick lines and was not given a longer fence), a path given twice: each is an unusable answer, with a reason that says so.
 */

/** What a fenced answer says besides its files. */
const metaSchema = z
  .object({
    summary: z.string().default(''),
    delete: z.array(z.string().min(1).max(512)).max(100).optional(),
    needsFiles: z.array(z.string().min(1).max(512)).max(10).optional(),
  })
  .strict();

export interface FencedEdits {
  readonly files: { path: string; content: string | null }[];
  readonly summary: string;
  readonly needsFiles: string[];
}

/** What reading an answer, or one part of it, gives: its value, or why the answer is unusable. */
type Read<T> =
  { readonly ok: true; readonly value: T } | { readonly ok: false; readonly reason: string };

export type FencedParse = Read<FencedEdits>;

const HEADER = /^File:\s*`?([^`\s][^`]*?)`?\s*$/;
const OPENING = /^(`{3,})([^`]*)$/;

type Meta = z.infer<typeof metaSchema>;

const fail = (reason: string): { ok: false; reason: string } => ({ ok: false, reason });

/** Reads a fenced answer (see the module's comment); never throws. */
export function parseFencedEdits(text: string): FencedParse {
  const lines = text.replace(/\r\n/g, '\n').split('\n');
  const files: { path: string; content: string | null }[] = [];
  let meta: Meta | undefined;
  let i = 0;
  while (i < lines.length) {
    const line = lines[i] as string;
    if (line.trim() === '') {
      i++;
      continue;
    }
    const header = HEADER.exec(line.trim());
    const opening = OPENING.exec(line.trimEnd());
    if (header === null && opening === null) {
      // Prose before the first file is a preamble; after it, it is a file's content cut loose.
      if (files.length === 0 && meta === undefined) {
        i++;
        continue;
      }
      const after = files.at(-1)?.path ?? 'the summary block';
      return fail(
        `text outside a fenced block after ${after} (line ${i + 1}: ${JSON.stringify(line.slice(0, 60))}): a line of backticks inside a file's content ends its block early; fence such a file with more backticks than any line in it`,
      );
    }
    if (meta !== undefined)
      return fail(
        `a block after the closing \`\`\`json summary block (line ${i + 1}): the summary comes last`,
      );
    const start = readBlockStart(lines, i, header, opening);
    if (!start.ok) return start;
    const block = readBlockBody(lines, start.value);
    if (!block.ok) return block;
    i = block.value.next;
    const { path, info } = start.value;
    const body = block.value.lines;
    if (path === undefined) {
      const summary = readSummary(body, info, files.at(-1)?.path ?? 'the start');
      if (!summary.ok) return summary;
      meta = summary.value;
      continue;
    }
    if (files.some((f) => f.path === path)) return fail(`${path} is written twice`);
    files.push({ path, content: body.length === 0 ? '' : `${body.join('\n')}\n` });
  }
  return editsOf(files, meta);
}

/** Where a block opens: its file's path (none for the summary), its fence and info string, and its first content line. */
interface BlockStart {
  readonly path: string | undefined;
  readonly fence: string;
  readonly info: string;
  readonly bodyAt: number;
}

/**
 * The block that line `i` begins: a `File:` line with its opening fence right under it, or an
 * opening fence alone (the summary's). `header` and `opening` are the two patterns' matches on
 * line `i`, one of them not null.
 */
function readBlockStart(
  lines: readonly string[],
  i: number,
  header: RegExpExecArray | null,
  opening: RegExpExecArray | null,
): Read<BlockStart> {
  if (header === null)
    return {
      ok: true,
      value: {
        path: undefined,
        fence: opening?.[1] as string,
        info: (opening?.[2] as string).trim(),
        bodyAt: i + 1,
      },
    };
  const path = (header[1] as string).trim();
  const next = lines[i + 1]?.trimEnd() ?? '';
  const open = OPENING.exec(next);
  if (open === null)
    return fail(
      `the line after "File: ${path}" (line ${i + 2}) is not an opening fence: each file's content goes in a fenced block right under its File: line`,
    );
  const value = { path, fence: open[1] as string, info: (open[2] as string).trim(), bodyAt: i + 2 };
  return { ok: true, value };
}

/**
 * A block's content lines, up to its closing fence (one at least as long as its opening fence),
 * and the line after that fence. A line that opens another block with such a fence is a failure.
 */
function readBlockBody(
  lines: readonly string[],
  start: BlockStart,
): Read<{ lines: string[]; next: number }> {
  const { path, fence } = start;
  const body: string[] = [];
  for (let i = start.bodyAt; i < lines.length; i++) {
    const l = lines[i] as string;
    const close = /^(`{3,})\s*$/.exec(l.trimEnd());
    if (close !== null && (close[1] as string).length >= fence.length)
      return { ok: true, value: { lines: body, next: i + 1 } };
    const inner = OPENING.exec(l.trimEnd());
    if (inner !== null && (inner[1] as string).length >= fence.length) {
      const before = HEADER.exec((lines[i - 1] ?? '').trim());
      const where = path === undefined ? 'a block' : `the block for ${path}`;
      return fail(
        before !== null
          ? `${where} holds "File: ${(before[1] as string).trim()}" and an opening fence (line ${i + 1}): a closing fence is missing before it`
          : `${where} holds a line opening another fenced block (line ${i + 1}: ${JSON.stringify(l.slice(0, 40))}): a closing fence is missing, or the file holds lines of backticks and needed a longer fence`,
      );
    }
    body.push(l);
  }
  return fail(
    `the block ${path === undefined ? 'opened on the last lines' : `for ${path}`} is never closed: a closing fence is missing (or the answer was cut off)`,
  );
}

/** The summary from a block with no `File:` line (`after` names what it follows): it must be ```json. */
function readSummary(body: readonly string[], info: string, after: string): Read<Meta> {
  if (info.toLowerCase() !== 'json')
    return fail(
      `a fenced block with no "File: <path>" line before it (after ${after}): every file's block is headed by its path`,
    );
  let json: unknown;
  try {
    json = JSON.parse(body.join('\n'));
  } catch (error) {
    return fail(`the \`\`\`json summary block is not JSON: ${(error as Error).message}`);
  }
  const parsed = metaSchema.safeParse(json);
  if (!parsed.success)
    return fail(
      `the \`\`\`json block with no File: line is not the summary {"summary", "delete", "needsFiles"} (a file's path line may be missing): ${parsed.error.issues[0]?.message ?? ''}`,
    );
  return { ok: true, value: parsed.data };
}

/** The edits: the files written, then the summary's deletions; an answer that changes and asks for nothing is unusable. */
function editsOf(
  files: { path: string; content: string | null }[],
  meta: Meta | undefined,
): FencedParse {
  for (const path of meta?.delete ?? []) {
    if (files.some((f) => f.path === path)) return fail(`${path} is both written and deleted`);
    files.push({ path, content: null });
  }
  const needsFiles = meta?.needsFiles ?? [];
  if (files.length === 0 && needsFiles.length === 0)
    return fail('no "File: <path>" blocks, no deletions and no needsFiles');
  return { ok: true, value: { files, summary: meta?.summary ?? '', needsFiles } };
}

/** The fence for a content: three backticks, or one more than its longest run of backticks opening a line. */
export function fenceFor(content: string): string {
  const longest = Math.max(
    0,
    ...[...content.matchAll(/^(`{3,})/gm)].map((m) => (m[1] ?? '').length),
  );
  return '`'.repeat(Math.max(3, longest + 1));
}

/** A fenced answer as a careful model writes it (for fakes and tests). */
export function renderFencedEdits(edits: {
  readonly files: readonly { readonly path: string; readonly content: string | null }[];
  readonly summary: string;
  readonly needsFiles?: readonly string[];
}): string {
  const written = edits.files.flatMap((f) => {
    if (f.content === null) return [];
    const fence = fenceFor(f.content);
    const body = f.content.endsWith('\n') ? f.content : `${f.content}\n`;
    return [`File: ${f.path}\n${fence}${infoFor(f.path)}\n${body}${fence}\n`];
  });
  const deleted = edits.files.filter((f) => f.content === null).map((f) => f.path);
  const meta = {
    summary: edits.summary,
    ...(deleted.length > 0 ? { delete: deleted } : {}),
    ...(edits.needsFiles !== undefined && edits.needsFiles.length > 0
      ? { needsFiles: edits.needsFiles }
      : {}),
  };
  return `${[...written, `\`\`\`json\n${JSON.stringify(meta)}\n\`\`\`\n`].join('\n')}`;
}

/** The info string a block is opened with: the file's extension, as models write it. */
export function infoFor(path: string): string {
  const name = path.slice(path.lastIndexOf('/') + 1);
  const dot = name.lastIndexOf('.');
  return dot <= 0 ? '' : name.slice(dot + 1);
}
