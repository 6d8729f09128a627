import type { Question } from '../../../core/tree/schema.js';
import { KeyNames } from '../../../engine/keys.js';

/** A pending question with its options and context (a veto's diffstat), indented for a terminal. */
export function questionLines(q: Question, indent = '  '): string[] {
  return [
    `${indent}${q.id} (${q.kind}): ${q.prompt}`,
    ...(q.context === undefined || q.context === ''
      ? []
      : q.context
          .split('\n')
          .slice(0, 25)
          .map((l) => `${indent}  ${l}`)),
    ...q.options.map((o) => `${indent}  ${o.id}: ${o.label}`),
  ];
}

/**
 * The journal as lines: a vote key is named once (a plan described the first time it appears,
 * then called by its name), a question by its id, kind and prompt.
 */
export function traceLines(events: readonly Record<string, unknown>[]): string[] {
  const names = new KeyNames();
  return events.map((e) => {
    const rest: Record<string, unknown> = {};
    const words: string[] = [];
    for (const [k, v] of Object.entries(e)) {
      if (['seq', 'at', 'type', 'runId'].includes(k)) continue;
      if (k === 'key' && typeof v === 'string') {
        const name = names.name(v);
        words.push(
          `key ${name.name}${name.description === undefined ? '' : ` = ${name.description}`}`,
        );
      } else if (k === 'question' && typeof v === 'object' && v !== null) {
        const q = v as Question;
        words.push(`${q.id} (${q.kind}): ${q.prompt}`);
      } else rest[k] = v;
    }
    const json = Object.keys(rest).length === 0 ? '' : ` ${JSON.stringify(rest)}`;
    return `  #${String(e['seq'])} ${String(e['at'])} ${String(e['type'])}${json}${words.length === 0 ? '' : ` ${words.join(' ')}`}`;
  });
}
