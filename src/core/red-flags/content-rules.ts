import type { WrittenContent } from '../candidate-policy.js';
import { AWS_SECRET_ACCESS_KEY } from '../credential-formats.js';
import { editFormatRedFlags } from '../edit-format.js';
import { showPath as show } from '../paths.js';
import type { FlagRule } from './rule.js';

/**
 * What a candidate writes, binary files included: each written file's new content (and the old one
 * when it existed, so only what the candidate adds counts), `texts` the new contents decoded as
 * Latin-1 (every byte one character), the run's own configured keys, and whether the files were
 * written whole (not patched).
 */
export interface ContentInput {
  readonly files: readonly WrittenContent[];
  readonly texts: ReadonlyMap<WrittenContent, string>;
  readonly secrets: readonly string[];
  readonly wholeFiles: boolean;
}

/** Latin-1 maps every byte to one character: binary content is scanned byte for byte (a view, not a copy). */
export const latin1 = (bytes: Uint8Array) =>
  Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString('latin1');

/** The content input for `files`, each new text decoded once. */
export function contentInput(
  files: readonly WrittenContent[],
  secrets: readonly string[] = [],
  wholeFiles = false,
): ContentInput {
  return { files, texts: new Map(files.map((f) => [f, latin1(f.after)])), secrets, wholeFiles };
}

const SECRET_PATTERNS: readonly RegExp[] = [
  /AIza[0-9A-Za-z_-]{35}/g,
  /gh[pousr]_[0-9A-Za-z]{36}/g,
  /github_pat_[0-9A-Za-z_]{40,}/g,
  /AKIA[0-9A-Z]{16}/g,
  /-----BEGIN (?:RSA |EC |OPENSSH |DSA |ENCRYPTED )?PRIVATE KEY-----/g,
  /xox[baprs]-[0-9A-Za-z-]{10,}/g,
];

/** How a redaction begins (`[REDACTED:<rule>]`): a candidate that adds one copied what it was not shown. */
const REDACTED = '[REDACTED:';

const shownFiles = (files: readonly WrittenContent[]) =>
  files
    .map((f) => show(f.path))
    .slice(0, 5)
    .join(', ');

/** The credentials in `content`: known formats, the bare AWS secret key in its context, `keys`. */
function credentials(content: string, keys: readonly string[]): Set<string> {
  const hits = new Set<string>();
  for (const re of SECRET_PATTERNS) for (const m of content.matchAll(re)) hits.add(m[0]);
  for (const m of AWS_SECRET_ACCESS_KEY.find(content)) hits.add(content.slice(m.start, m.end));
  for (const key of keys) if (content.includes(key)) hits.add(key);
  return hits;
}

export const secretRule: FlagRule<ContentInput> = {
  id: 'secret',
  scope: 'content',
  description:
    "A credential added (known formats, a bare AWS secret key in context, the run's own keys, and the secretlint rule set) that the old content did not hold.",
  check: ({ files, texts, secrets }) => {
    const keys = secrets.filter((s) => s !== '').map((s) => Buffer.from(s).toString('latin1'));
    const leaking = files.filter((f) => {
      const after = credentials(texts.get(f) as string, keys);
      // The old content is scanned only when the new one holds something.
      if (after.size === 0) return false;
      const before =
        f.before === undefined ? new Set<string>() : credentials(latin1(f.before), keys);
      return [...after].some((hit) => !before.has(hit));
    });
    return leaking.length === 0
      ? []
      : [
          {
            rule: 'secret',
            message: `The candidate adds what looks like a credential to ${shownFiles(leaking)}.`,
          },
        ];
  },
};

const placeholders = (content: string) => content.split(REDACTED).length - 1;

export const redactedTextRule: FlagRule<ContentInput> = {
  id: 'redacted-text',
  scope: 'content',
  description:
    'A redaction placeholder ([REDACTED:…]) written: the candidate copied what it was not shown over what was there.',
  check: ({ files, texts }) => {
    const copied = files.filter((f) => {
      const after = placeholders(texts.get(f) as string);
      return after > 0 && after > (f.before === undefined ? 0 : placeholders(latin1(f.before)));
    });
    return copied.length === 0
      ? []
      : [
          {
            rule: 'redacted-text',
            message: `The candidate writes text MAKER redacted from what it was shown (${REDACTED}…]) into ${shownFiles(copied)}: it would replace what was there.`,
          },
        ];
  },
};

export const conflictMarkersRule: FlagRule<ContentInput> = {
  id: 'conflict-markers',
  scope: 'content',
  description: 'Merge conflict markers (<<<<<<< or >>>>>>>) left in a file.',
  check: ({ files, texts }) => {
    const marked = files.find((f) => /^(<{7}|>{7})( |$)/m.test(texts.get(f) as string));
    return marked === undefined
      ? []
      : [
          {
            rule: 'conflict-markers',
            message: `The candidate leaves conflict markers in ${show(marked.path)}.`,
          },
        ];
  },
};

/** The content rules judged on bytes, in the order their flags are listed. */
export const CONTENT_RULES: readonly FlagRule<ContentInput>[] = [
  secretRule,
  redactedTextRule,
  conflictMarkersRule,
];

/** An edit-format rule of `core/edit-format.ts` (which judges all three in one pass per file). */
const editFormatRule = (id: string, description: string): FlagRule<ContentInput> => ({
  id,
  scope: 'content',
  description,
  check: ({ files, wholeFiles }) =>
    editFormatRedFlags(files, { wholeFiles }).filter((f) => f.rule === id),
});

/** The rules of edits gone wrong in transit, run in one pass by `editFormatRedFlags`. */
export const EDIT_FORMAT_RULES: readonly FlagRule<ContentInput>[] = [
  editFormatRule(
    'does-not-parse',
    'A structured file (.json, .toml, .yaml) that parsed before no longer parses.',
  ),
  editFormatRule(
    'over-escaped',
    'A source file written as one line of literal "\\n" sequences (escaped twice).',
  ),
  editFormatRule(
    'omission-marker',
    'A whole-file rewrite with an omission marker ("// ... rest unchanged") where code was.',
  ),
];
