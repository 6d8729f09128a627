import type { Question } from '../../../core/tree/schema.js';
import { eventWords } from '../../view/log-text.js';
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
 * The journal as lines, in the words of the live view's activity log: its number, time, node and
 * what happened. A proposed plan (a split's key) is named once and described the first time.
 */
export function traceLines(events: readonly Record<string, unknown>[]): string[] {
  const names = new KeyNames();
  return events.map((e) => {
    const key = e['key'];
    const named = typeof key === 'string' ? names.name(key) : undefined;
    const plan =
      named === undefined || !named.name.startsWith('plan ')
        ? ''
        : `, key ${named.name}${named.description === undefined ? '' : ` = ${named.description}`}`;
    return `  #${String(e['seq'])} ${String(e['at'])} ${eventWords(e)}${plan}`;
  });
}
