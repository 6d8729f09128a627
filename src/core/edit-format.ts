import { parse as parseToml } from 'smol-toml';
import { parseAllDocuments } from 'yaml';
import type { WrittenContent } from './candidate-policy.js';
import { showPath as show } from './paths.js';
import type { RedFlag } from './voting/types.js';

/**
 * Red flags for the ways a model's file edits go wrong in transit, whatever the code says: a
 * structured file (`.json`, `.toml`, `.yaml`) that no longer parses as its type, a source file
 * over-escaped into one line of literal `\n` sequences (a model writing code inside a JSON string
 * can escape it twice), and, in whole-file rewrites, an omission marker ("// ... rest unchanged")
 * standing where code was: whatever it stands for is deleted. Only what the candidate changed is
 * judged, and a file that did not parse before is not the candidate's fault.
 */
export function editFormatRedFlags(
  files: readonly WrittenContent[],
  options: { readonly wholeFiles: boolean },
): RedFlag[] {
  const flags: RedFlag[] = [];
  for (const f of files) {
    if (f.before !== undefined && view(f.before).equals(view(f.after))) continue;
    if (f.after.includes(0)) continue; // binary
    const after = view(f.after).toString('utf8');
    const before = f.before === undefined ? undefined : view(f.before).toString('utf8');
    const broken = structureProblem(f.path, after);
    if (
      broken !== undefined &&
      (before === undefined || structureProblem(f.path, before) === undefined)
    )
      flags.push({
        rule: 'does-not-parse',
        message: `The candidate writes ${show(f.path)}, which does not parse as ${broken}.`,
      });
    if (overEscaped(f.path, after) && (before === undefined || !overEscaped(f.path, before)))
      flags.push({
        rule: 'over-escaped',
        message: `The candidate writes ${show(f.path)} as one line of literal "\\n" sequences: its content was escaped twice.`,
      });
    const marker = options.wholeFiles ? omissionMarker(after, before) : undefined;
    if (marker !== undefined)
      flags.push({
        rule: 'omission-marker',
        message: `The candidate rewrites ${show(f.path)} with an omission marker where code was (${JSON.stringify(marker)}): what it stands for would be deleted.`,
      });
  }
  return flags;
}

/** The bytes as a Buffer over the same memory (`Buffer.from` of a Uint8Array copies them). */
function view(bytes: Uint8Array): Buffer {
  return Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
}

/**
 * What a structured file fails to parse as (`JSON: …`), or undefined when it parses or its type is
 * not one that is checked. JSON files that conventionally hold comments (`tsconfig.json`,
 * `.vscode/*.json`, …) are read as JSON with comments; `package.json` and the rest strictly.
 */
export function structureProblem(path: string, content: string): string | undefined {
  const name = path.slice(path.lastIndexOf('/') + 1).toLowerCase();
  try {
    if (/\.(json|jsonc|json5)$/.test(name)) {
      if (name.endsWith('.json5')) return undefined; // a superset this check does not read
      JSON.parse(
        name.endsWith('.jsonc') || JSON_WITH_COMMENTS.test(path)
          ? withoutComments(content)
          : content,
      );
    } else if (name.endsWith('.toml')) parseToml(content);
    else if (name.endsWith('.yaml') || name.endsWith('.yml')) {
      const problem = parseAllDocuments(content, { prettyErrors: false })
        .flatMap((d) => ('errors' in d ? d.errors : []))
        .at(0);
      if (problem !== undefined) throw problem;
    }
    return undefined;
  } catch (error) {
    const kind = /\.toml$/i.test(name) ? 'TOML' : /\.ya?ml$/i.test(name) ? 'YAML' : 'JSON';
    return `${kind}: ${firstLine((error as Error).message)}`;
  }
}

/**
 * JSON with comments as plain JSON: comments blanked and trailing commas dropped, outside strings
 * (as TypeScript and VS Code read `tsconfig.json`). Offsets of what remains are kept.
 */
export function withoutComments(text: string): string {
  let out = '';
  for (let i = 0; i < text.length; i++) {
    const c = text[i] as string;
    if (c === '"') {
      const start = i;
      for (i++; i < text.length && text[i] !== '"'; i++) if (text[i] === '\\') i++;
      out += text.slice(start, i + 1);
    } else if (c === '/' && text[i + 1] === '/') {
      while (i < text.length && text[i] !== '\n') i++;
      out += '\n';
    } else if (c === '/' && text[i + 1] === '*') {
      const end = text.indexOf('*/', i + 2);
      const stop = end === -1 ? text.length : end + 2;
      out += text.slice(i, stop).replace(/[^\n]/g, ' ');
      i = stop - 1;
    } else if (c === ',' && closesNext(text, i + 1)) out += ' ';
    else out += c;
  }
  return out;
}

const CLOSER = /(?:\s|\/\/[^\n]*|\/\*[\s\S]*?\*\/)*[}\]]/y;

/** Whether the next character at or after `at` that is not blank or in a comment closes a list. */
function closesNext(text: string, at: number): boolean {
  CLOSER.lastIndex = at;
  return CLOSER.test(text);
}

/** JSON files that tools read with comments and trailing commas allowed. */
const JSON_WITH_COMMENTS =
  /(^|\/)(tsconfig[^/]*|jsconfig[^/]*|\.eslintrc|\.babelrc|devcontainer|\.devcontainer\/[^/]*|\.vscode\/[^/]*|api-extractor|typedoc)\.json$/i;

const firstLine = (text: string) => text.split('\n')[0]?.slice(0, 200) ?? '';

/** Text files in which a real file has more than one line; minified and data files are left alone. */
const MULTILINE =
  /\.(?:[cm]?[jt]sx?|py|pyi|go|rs|java|kt|rb|php|c|h|cc|cpp|hpp|cs|swift|sh|bash|md|txt|html|css|scss|toml|ya?ml|sql|vue|svelte)$/i;

/**
 * A source file written as one line holding literal `\n` sequences (at least three, and nothing
 * after the last real newline but that line): code that was escaped twice on its way out of a
 * JSON string.
 */
export function overEscaped(path: string, content: string): boolean {
  if (!MULTILINE.test(path) || /\.min\.[cm]?js$/i.test(path)) return false;
  const body = content.replace(/\r?\n$/, '');
  if (body.includes('\n')) return false;
  return (body.match(/\\n/g) ?? []).length >= 3;
}

/** A comment's opening, in the languages a repository is likely to hold. */
const LEADER = /^\s*(?:\/\/+|#+|--|;+|\/\*+|<!--|\{\/\*|\*)\s*/;
/** A comment that is only an ellipsis: `// ...`, `# …`, `/* ... *\/`, `<!-- ... -->`. */
const ELLIPSIS_ONLY = /^(?:\/\/+|#+|--|;+|\/\*+|<!--|\{\/\*|\*)\s*(?:\.{3}|…)\s*(?:\*\/\}?|-->)?$/;
const ELLIPSIS = String.raw`(?:\.{3}|…)`;
/**
 * How a comment standing for left-out code begins (after any ellipsis or bracket): "rest of the
 * file unchanged", "...existing code...", "unchanged", "omitted for brevity". Anchored at the
 * comment's start, so a comment that describes code ("leave the rest unchanged") is not one.
 */
const PHRASE = new RegExp(
  String.raw`^(?:${ELLIPSIS}|[([]|\s)*(?:` +
    [
      String.raw`(?:the )?(?:rest|remainder|remaining)(?: of)?(?: the)?(?: [\w.-]+){0,2}(?: is| are)? (?:unchanged|the same|as before|as is|omitted|remains? (?:unchanged|the same|as is)|stays? (?:unchanged|the same))`,
      String.raw`(?:existing|previous|original) (?:code|content|implementation|imports|tests|methods|functions|fields|keys|entries|scripts|dependencies|lines)(?:\s*(?:${ELLIPSIS}|unchanged|omitted|here|goes here|remains?|as before|[)\]])|\s*(?:\*\/|-->)?\s*$)`,
      String.raw`(?:unchanged|same as before)\s*(?:${ELLIPSIS}|[)\]]|\*\/|-->|$)`,
      String.raw`[\w ]{0,30}omitted for brevity`,
    ].join('|') +
    ')',
  'i',
);

const STARTS_WITH_ELLIPSIS = new RegExp(`^${ELLIPSIS}`);

/** Whether a line stands for code left out of a whole-file rewrite. */
export function isOmissionLine(line: string): boolean {
  const trimmed = line.trim();
  if (ELLIPSIS_ONLY.test(trimmed)) return true;
  const leader = LEADER.exec(line);
  const body =
    leader !== null
      ? line.slice(leader[0].length)
      : STARTS_WITH_ELLIPSIS.test(trimmed)
        ? trimmed
        : undefined;
  return body !== undefined && PHRASE.test(body);
}

/**
 * The first omission marker `after` adds (a line {@link isOmissionLine} accepts that `before`
 * does not hold), or undefined.
 */
export function omissionMarker(after: string, before: string | undefined): string | undefined {
  const had = new Set((before ?? '').split(/\r?\n/).map((l) => l.trim()));
  for (const line of after.split(/\r?\n/))
    if (!had.has(line.trim()) && isOmissionLine(line)) return line.trim().slice(0, 80);
  return undefined;
}
