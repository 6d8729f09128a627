import { isTestPath } from '../acceptance-test.js';

/**
 * Names for vote keys, for people reading a run: short keys (`yes`, a ballot letter) as they are,
 * tree hashes by their first 12 digits, and long structured keys (a proposed split, as canonical
 * JSON) as `plan 1`, `plan 2`… — described in words the first time each appears, never repeated.
 */
export class KeyNames {
  readonly #plans = new Map<string, string>();
  #first: { name: string; subtasks: readonly Record<string, unknown>[] } | undefined;

  /** The key's name, and its description when this is the first time it is named. */
  name(key: string): { name: string; description?: string } {
    if (key.length <= 16) return { name: key };
    // A behaviour key (`core/voting/behaviour.ts`): what the leaf's probe printed, by its digest.
    const behaviour = /^behaviour:(?:exit0:)?([0-9a-f]{12})[0-9a-f]*$/.exec(key);
    if (behaviour !== null) return { name: `behaviour ${behaviour[1]}` };
    if (/^[0-9a-f]{40}([0-9a-f]{24})?$/.test(key)) return { name: key.slice(0, 12) };
    const known = this.#plans.get(key);
    if (known !== undefined) return { name: known };
    const name = `plan ${this.#plans.size + 1}`;
    this.#plans.set(key, name);
    const subtasks = subtasksOf(key);
    let description = describePlan(key);
    if (subtasks !== undefined && this.#first !== undefined) {
      const differs = differences(this.#first.subtasks, subtasks);
      if (differs !== '') description += ` (differs from ${this.#first.name} in ${differs})`;
    } else if (subtasks !== undefined) this.#first = { name, subtasks };
    return { name, description };
  }
}

/** Where two splits differ: their length, or which fields of which subtasks (1-based). */
function differences(
  a: readonly Record<string, unknown>[],
  b: readonly Record<string, unknown>[],
): string {
  if (a.length !== b.length) return `the number of subtasks (${a.length} and ${b.length})`;
  const parts: string[] = [];
  for (const [i, x] of a.entries()) {
    const y = b[i] ?? {};
    const fields = [...new Set([...Object.keys(x), ...Object.keys(y)])].filter(
      (f) => JSON.stringify(x[f]) !== JSON.stringify(y[f]),
    );
    if (fields.length > 0) parts.push(`subtask ${i + 1}'s ${fields.join(' and ')}`);
  }
  return parts.join('; ');
}

/** The subtasks of a split key, if it is one. */
function subtasksOf(key: string): Record<string, unknown>[] | undefined {
  const value = parsed(key);
  const list = Array.isArray(value)
    ? value
    : typeof value === 'object' &&
        value !== null &&
        Array.isArray((value as { subtasks?: unknown }).subtasks)
      ? (value as { subtasks: unknown[] }).subtasks
      : undefined;
  // A subtask in a split key: its files and dependencies (`core/voting/equivalence.ts` splitKey),
  // or a title (keys saved before titles left the key).
  return list !== undefined &&
    list.every(
      (s) =>
        typeof s === 'object' && s !== null && ('title' in s || ('files' in s && 'dependsOn' in s)),
    )
    ? (list as Record<string, unknown>[])
    : undefined;
}

/** A subtask of a split key in a few words: its title where the key has one, else its files, else its check. */
function subtaskLabel(s: Record<string, unknown>): string {
  if (typeof s['title'] === 'string') return `"${cut(s['title'], 60)}"`;
  const files = Array.isArray(s['files']) ? s['files'].map(String) : [];
  if (files.length > 0) return cut(files.join(' + '), 60);
  return typeof s['check'] === 'string' ? `checked by \`${cut(s['check'], 60)}\`` : '(no files)';
}

/** A structured key in words: a split as its subtasks (titles, or files); anything else as compact, cut text. */
export function describePlan(key: string): string {
  const subtasks = subtasksOf(key);
  if (subtasks !== undefined) {
    const labels = subtasks.map(subtaskLabel);
    return `${subtasks.length} subtask${subtasks.length === 1 ? '' : 's'}: ${labels.join(', ')}`;
  }
  const test = testOf(key);
  if (test !== undefined)
    return `${isTestPath(test.path) ? 'a test' : 'a program'} in ${cut(test.path, 80)}, run by \`${cut(test.command, 80)}\``;
  return cut(key, 120);
}

/** An acceptance test's key (its path, command and content), if it is one. */
function testOf(key: string): { path: string; command: string } | undefined {
  const value = parsed(key);
  if (typeof value !== 'object' || value === null) return undefined;
  const { path, command } = value as { path?: unknown; command?: unknown };
  return typeof path === 'string' && typeof command === 'string' ? { path, command } : undefined;
}

/** A key as the JSON it is, or undefined when it is not JSON. */
function parsed(key: string): unknown {
  try {
    return JSON.parse(key) as unknown;
  } catch {
    return undefined;
  }
}

function cut(text: string, max: number): string {
  return text.length <= max ? text : `${text.slice(0, max - 1)}…`;
}
