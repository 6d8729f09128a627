import type { Question, RunConfig } from '../../../core/tree/schema.js';
import type { RunSummary } from '../../../core/view/summary.js';
import { eventWords } from '../../view/log-text.js';
import { KeyNames } from '../../../core/view/key-names.js';

/** How the run's questions are answered (its --hitl), in words. */
export function hitlWords(hitl: RunConfig['hitl']): string {
  switch (hitl) {
    case 'wait':
      return 'questions asked where it runs: at its terminal or on its live view (--hitl tty or view)';
    case 'defer':
      return 'questions saved for maker answer (--hitl defer)';
    case 'auto':
      return 'questions answered automatically (--hitl auto)';
    case 'fail':
      return 'a question stops it (--hitl fail)';
  }
}

/**
 * Model calls by role, and the worker's runs apart: a worker that is not a model (the simulation,
 * Jules) makes no model call of its own, though its runs count tokens.
 */
export function roleLines(s: RunSummary): string[] {
  const calls = Object.entries(s.byRole).filter(([role, c]) => role !== 'worker' || c.calls > 0);
  const worker = s.byRole['worker'];
  const parts = [
    ...(calls.length === 0
      ? []
      : [
          `model calls by role: ${calls.map(([role, c]) => `${role} ${c.calls} (${c.tokens} tokens)`).join(', ')}`,
        ]),
    ...(worker === undefined || worker.calls > 0
      ? []
      : [`worker runs ${s.workerRuns} (${worker.tokens} tokens; no model call of their own)`]),
  ];
  return parts.length === 0 ? [] : [parts.join('; ')];
}

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
