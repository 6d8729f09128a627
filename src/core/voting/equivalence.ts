import type { KeyOf } from './types.js';

/**
 * Canonical JSON of a structured answer: object keys sorted, no insignificant whitespace, and
 * (by default) runs of whitespace inside strings collapsed and trimmed, so answers that differ only
 * in layout vote together. Arrays keep their order. `undefined` object fields are dropped, as in
 * JSON. Throws on values JSON cannot hold (functions, bigint, cycles).
 */
export function canonicalJson(
  value: unknown,
  options: { normalizeStrings?: boolean } = {},
): string {
  const normalizeStrings = options.normalizeStrings ?? true;
  const seen = new Set<object>();
  const walk = (v: unknown): string => {
    if (v === null) return 'null';
    switch (typeof v) {
      case 'string':
        return JSON.stringify(normalizeStrings ? normalizeWhitespace(v) : v);
      case 'number':
        return Number.isFinite(v) ? JSON.stringify(v) : 'null';
      case 'boolean':
        return v ? 'true' : 'false';
      case 'object': {
        if (seen.has(v)) throw new TypeError('canonicalJson: the value contains a cycle.');
        seen.add(v);
        let out: string;
        if (Array.isArray(v)) {
          out = `[${v.map((item: unknown) => (item === undefined ? 'null' : walk(item))).join(',')}]`;
        } else {
          const record = v as Record<string, unknown>;
          const fields = Object.keys(record)
            .filter((key) => record[key] !== undefined)
            .sort()
            .map((key) => `${JSON.stringify(key)}:${walk(record[key])}`);
          out = `{${fields.join(',')}}`;
        }
        seen.delete(v);
        return out;
      }
      default:
        throw new TypeError(`canonicalJson: cannot encode a ${typeof v}.`);
    }
  };
  return walk(value);
}

/** Collapses every run of whitespace to one space and trims both ends. */
export function normalizeWhitespace(text: string): string {
  return text.replace(/\s+/g, ' ').trim();
}

/** Equivalence key for structured values: their canonical JSON. */
export const structuredKey: KeyOf<unknown> = (value) => canonicalJson(value);

/** Equivalence key for free text: whitespace-normalised text. */
export const textKey: KeyOf<string> = (value) => normalizeWhitespace(value);

/**
 * Equivalence key for JSON text: parsed, then canonical. Text that is not JSON falls back to its
 * whitespace-normalised form so that it still votes (with itself) rather than crashing the vote.
 */
export const jsonTextKey: KeyOf<string> = (value) => {
  try {
    return canonicalJson(JSON.parse(value) as unknown);
  } catch {
    return `text:${normalizeWhitespace(value)}`;
  }
};

/** A title as it votes: lower case, punctuation and articles dropped, whitespace collapsed. */
export function normalizeTitle(title: string): string {
  return title
    .toLowerCase()
    .replace(/[^\p{L}\p{N}]+/gu, ' ')
    .split(' ')
    .filter((w) => w !== '' && w !== 'a' && w !== 'an' && w !== 'the')
    .join(' ');
}

/** What makes a subtask the same subtask in a split vote (prose is left out). */
export interface SplitShape {
  readonly title: string;
  readonly files: readonly string[];
  readonly dependsOn: readonly number[];
  readonly check?: string | undefined;
}

/**
 * Equivalence key for a proposed split, by structure: the same subtasks in the same order, each
 * with the same files (as a set, `./` and trailing slashes dropped), dependencies and check.
 * Titles, descriptions, acceptance wording and `provides` (what a subtask promises its siblings)
 * do not split a vote: they are prose ("Write the CSV parser", "CSV parsing module"; "parseCsv(text)
 * → rows", "src/csv.mjs exports parseCsv"), which no normalisation makes equal across wordings and
 * languages, while what binds the subtasks (the files each owns, their order and dependencies,
 * their checks) is in the key. Only a subtask with neither files nor a check, which nothing else
 * binds, is keyed by its title (after {@link normalizeTitle}). The winning sample's own prose is
 * what its subtasks are given, so the titles and promises a plan carries stay those of one sample.
 */
export function splitKey(subtasks: readonly SplitShape[]): string {
  return canonicalJson(
    subtasks.map((s) => {
      const files = [
        ...new Set(
          s.files.map((f) =>
            f
              .trim()
              .replace(/^(\.\/)+/, '')
              .replace(/\/+$/, ''),
          ),
        ),
      ]
        .filter((f) => f !== '')
        .sort();
      const check = s.check === undefined ? '' : normalizeWhitespace(s.check);
      return {
        ...(files.length === 0 && check === '' ? { title: normalizeTitle(s.title) } : {}),
        files,
        dependsOn: [...new Set(s.dependsOn)].sort((a, b) => a - b),
        ...(check === '' ? {} : { check }),
      };
    }),
  );
}
