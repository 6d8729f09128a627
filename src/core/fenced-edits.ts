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

export type FencedParse =
  | { readonly ok: true; readonly value: FencedEdits }
  | { readonly ok: false; readonly reason: string };

const HEADER = /^File:\s*`?([^`\s][^`]*?)`?\s*$/;
const OPENING = /^(`{3,})([^`]*)$/;

/** Reads a fenced answer (see the module's comment); never throws. */
// eslint-disable-next-line max-lines-per-function -- over 80 lines: to be split by job (#40)
export function parseFencedEdits(text: string): FencedParse {
  const lines = text.replace(/\r\n/g, '\n').split('\n');
  const files: { path: string; content: string | null }[] = [];
  let meta: z.infer<typeof metaSchema> | undefined;
  const fail = (reason: string): FencedParse => ({ ok: false, reason });
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
    let path: string | undefined;
    let fence: string;
    let info: string;
    if (header !== null) {
      path = (header[1] as string).trim();
      const next = lines[i + 1]?.trimEnd() ?? '';
      const open = OPENING.exec(next);
      if (open === null)
        return fail(
          `the line after "File: ${path}" (line ${i + 2}) is not an opening fence: each file's content goes in a fenced block right under its File: line`,
        );
      fence = open[1] as string;
      info = (open[2] as string).trim();
      i += 2;
    } else {
      fence = opening?.[1] as string;
      info = (opening?.[2] as string).trim();
      i += 1;
    }
    const body: string[] = [];
    let closed = false;
    for (; i < lines.length; i++) {
      const l = lines[i] as string;
      const close = /^(`{3,})\s*$/.exec(l.trimEnd());
      if (close !== null && (close[1] as string).length >= fence.length) {
        closed = true;
        i++;
        break;
      }
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
    if (!closed)
      return fail(
        `the block ${path === undefined ? 'opened on the last lines' : `for ${path}`} is never closed: a closing fence is missing (or the answer was cut off)`,
      );
    if (path === undefined) {
      if (info.toLowerCase() !== 'json')
        return fail(
          `a fenced block with no "File: <path>" line before it (after ${files.at(-1)?.path ?? 'the start'}): every file's block is headed by its path`,
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
      meta = parsed.data;
      continue;
    }
    if (files.some((f) => f.path === path)) return fail(`${path} is written twice`);
    files.push({ path, content: body.length === 0 ? '' : `${body.join('\n')}\n` });
  }
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
