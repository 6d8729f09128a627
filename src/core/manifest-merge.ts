import { parse as parseToml, stringify as stringifyToml } from 'smol-toml';

/**
 * Three-way merges of shared manifests by their structure (JSON or TOML keys), not their text
 * lines: two subtasks that each add a dependency, a script or a `bin` entry to `package.json`
 * touch neighbouring lines, which a line merge calls a conflict, though they change different keys.
 * A key both sides changed differently is a real conflict, left to a voted integration.
 */

/** Manifests merged by structure: their names, and how they are read. */
const MANIFESTS: readonly [RegExp, 'json' | 'toml'][] = [
  [/(^|\/)(package|composer|deno|app|manifest)\.json$/, 'json'],
  [/(^|\/)(pyproject|Cargo|Pipfile)\.toml$/, 'toml'],
];

export function manifestKind(path: string): 'json' | 'toml' | undefined {
  return MANIFESTS.find(([re]) => re.test(path))?.[1];
}

const CONFLICT = Symbol('conflict');
/** A parsed manifest value, or the mark of a conflict. */
type Value = string | number | boolean | null | undefined | object;

const isObject = (v: Value): v is Record<string, Value> =>
  v !== null && typeof v === 'object' && !Array.isArray(v) && !(v instanceof Date);
const same = (a: Value, b: Value) => JSON.stringify(a) === JSON.stringify(b);

/**
 * The merge of `ours` and `theirs` from `base` (undefined: the key or file is absent there), or
 * `CONFLICT`. Objects merge key by key (ours' key order, then theirs' new keys); arrays both
 * sides changed merge as sets (what either removed is gone, what either added is kept, ours' order
 * first); anything else both changed differently conflicts.
 */
function merge3(base: Value, ours: Value, theirs: Value): Value | typeof CONFLICT {
  if (same(ours, theirs)) return ours;
  if (same(base, ours)) return theirs;
  if (same(base, theirs)) return ours;
  if (isObject(ours) && isObject(theirs)) {
    const b = isObject(base) ? base : {};
    const out: Record<string, Value> = {};
    for (const key of [...new Set([...Object.keys(ours), ...Object.keys(theirs)])]) {
      const merged = merge3(b[key], ours[key], theirs[key]);
      if (merged === CONFLICT) return CONFLICT;
      if (merged !== undefined) out[key] = merged;
    }
    return out;
  }
  if (Array.isArray(ours) && Array.isArray(theirs)) {
    const [o, t] = [ours as Value[], theirs as Value[]];
    const b: Value[] = Array.isArray(base) ? (base as Value[]) : [];
    const removed = (v: Value) =>
      b.some((x) => same(x, v)) && !(o.some((x) => same(x, v)) && t.some((x) => same(x, v)));
    const out: Value[] = [];
    for (const v of [...o, ...t]) if (!removed(v) && !out.some((x) => same(x, v))) out.push(v);
    return out;
  }
  return CONFLICT;
}

/**
 * The three-way merge of a manifest's contents (`null`: the file does not exist on that side), or
 * undefined when it is not a manifest, a side does not parse, or the sides change one key
 * differently. JSON keeps ours' indentation; TOML files holding comments are not merged (writing
 * them again would drop the comments).
 */
export function mergeManifest(
  path: string,
  base: string | null,
  ours: string | null,
  theirs: string | null,
): string | undefined {
  const kind = manifestKind(path);
  if (kind === undefined || ours === null || theirs === null) return undefined;
  if (kind === 'toml' && [base, ours, theirs].some((t) => t !== null && /^\s*#|\s#/m.test(t)))
    return undefined;
  const read = (text: string | null): Value => {
    if (text === null) return undefined;
    return kind === 'json' ? (JSON.parse(text) as Value) : parseToml(text);
  };
  let merged: Value | typeof CONFLICT;
  try {
    merged = merge3(read(base), read(ours), read(theirs));
  } catch {
    return undefined;
  }
  if (merged === CONFLICT || !isObject(merged)) return undefined;
  if (kind === 'toml') return stringifyToml(merged).replace(/\n*$/, '\n');
  const indent = /^[ \t]+(?=")/m.exec(ours)?.[0] ?? '  ';
  return `${JSON.stringify(merged, null, indent)}${ours.endsWith('\n') ? '\n' : ''}`;
}
