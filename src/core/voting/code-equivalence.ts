import { createHash } from 'node:crypto';
import { canonicalJson } from './equivalence.js';
import { extensionOf, normalizeSourceText } from './source-text.js';
import { isScript, scriptForms } from './syntax-tree.js';

/**
 * Equivalence classes of code candidates. A candidate is the set of files it changes at the vote's
 * base; two candidates are one answer when every file they change has the same normal form:
 *
 * - JavaScript and TypeScript: the syntax tree, without comments, layout or spelling (see
 *   `syntax-tree.ts`); JSON: its canonical form (keys sorted); other text: comment- and
 *   whitespace-normalised (`source-text.ts`); anything else: its bytes.
 * - A file whose normal form is its base's (a comment or a blank line added) is no change at all.
 *
 * Each candidate gets two keys: `key`, its normal forms, and `alias`, the same with local names
 * replaced by their order of appearance. Equal keys are one class; equal aliases are one class only
 * when checks ran on both and gave the same results (`classes.ts`).
 */

/** One file a candidate writes: its bytes at the base and in the candidate (undefined: absent). */
export interface ChangedFile {
  readonly path: string;
  readonly before: Uint8Array | undefined;
  readonly after: Uint8Array | undefined;
  /** Its new git mode when the candidate changed it (made it executable, a symlink). */
  readonly mode?: string | undefined;
}

export interface CodeKeys {
  /** Normalised content (64 hex digits). */
  readonly key: string;
  /** Normalised content with local names renamed (64 hex digits). */
  readonly alias: string;
}

interface Forms {
  readonly normal: string;
  readonly alpha: string;
}

const decoder = new TextDecoder('utf-8', { fatal: true });

function text(bytes: Uint8Array): string | undefined {
  try {
    return decoder.decode(bytes);
  } catch {
    return undefined;
  }
}

function digest(text: string): string {
  return createHash('sha256').update(text).digest('hex');
}

/** The normal forms of one version of each file (absent: `undefined`). */
async function formsOf(
  files: readonly { path: string; bytes: Uint8Array | undefined }[],
): Promise<(Forms | undefined)[]> {
  const scripts: { path: string; file: string; content: string; index: number }[] = [];
  const out: (Forms | undefined)[] = files.map(({ path, bytes }, index) => {
    if (bytes === undefined) return undefined;
    const content = text(bytes);
    if (content === undefined) {
      const normal = `bytes:${createHash('sha256').update(bytes).digest('hex')}`;
      return { normal, alpha: normal };
    }
    const extension = extensionOf(path);
    // A script's text form is made only if it does not parse (below).
    if (isScript(extension)) {
      scripts.push({ path: `${index}/${path}`, file: path, content, index });
      return undefined;
    }
    if (extension === 'json') {
      try {
        const normal = `json:${canonicalJson(JSON.parse(content) as unknown, { normalizeStrings: false })}`;
        return { normal, alpha: normal };
      } catch {
        // Not JSON after all: compared as text.
      }
    }
    const normal = `text:${normalizeSourceText(path, content)}`;
    return { normal, alpha: normal };
  });
  const parsed = await scriptForms(scripts);
  for (const script of scripts) {
    const forms = parsed.get(script.path);
    if (forms !== undefined) {
      out[script.index] = forms;
      continue;
    }
    const normal = `text:${normalizeSourceText(script.file, script.content)}`;
    out[script.index] = { normal, alpha: normal };
  }
  return out;
}

/** The keys of a candidate that changes `files` at its base. */
export async function codeKeys(files: readonly ChangedFile[]): Promise<CodeKeys> {
  const sorted = [...files].sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
  const [before, after] = await Promise.all([
    formsOf(sorted.map((f) => ({ path: f.path, bytes: f.before }))),
    formsOf(sorted.map((f) => ({ path: f.path, bytes: f.after }))),
  ]);
  const normal: string[] = [];
  const alpha: string[] = [];
  for (const [i, file] of sorted.entries()) {
    const was = before[i];
    const now = after[i];
    // A change of comments or layout only: the same file.
    if (
      was !== undefined &&
      now !== undefined &&
      was.normal === now.normal &&
      file.mode === undefined
    )
      continue;
    const entry = (form: keyof Forms) =>
      `${JSON.stringify(file.path)}\u0000${file.mode ?? ''}\u0000${now === undefined ? '\u0000deleted' : now[form]}`;
    normal.push(entry('normal'));
    alpha.push(entry('alpha'));
  }
  return {
    key: digest(normal.join('\u0001')),
    alias: digest(`alpha\u0001${alpha.join('\u0001')}`),
  };
}
