import type { LockInspection } from '../../../adapters/state/lock.js';
import type { Question, Run } from '../../../core/tree/schema.js';
import { KeyNames } from '../../../engine/keys.js';

/**
 * Where a run stands, as a person should read it: a run whose state says "running" while no live
 * process holds the workspace is interrupted; a run waiting for answers that has none pending is
 * ready to resume. With the command that moves it on, when there is one.
 */
export function runStanding(
  run: Run,
  dir: string,
  lock: LockInspection | undefined,
): { label: string; interrupted: boolean; next?: string } {
  const resume = `maker resume --dir ${dir} --run ${run.id}`;
  const pending = run.questions.filter((q) => q.answer === undefined);
  switch (run.status) {
    case 'running': {
      if (lock !== undefined && lock.state !== 'stale') {
        const who = `${lock.owner.command === undefined ? 'maker' : `maker ${lock.owner.command}`}, pid ${lock.owner.pid}`;
        return {
          label:
            lock.state === 'live'
              ? `running (${who})`
              : `running, as far as can be told (${who} on another host)`,
          interrupted: false,
        };
      }
      return {
        label: 'interrupted (its maker process is gone; nothing is lost)',
        interrupted: true,
        next: `Continue with: ${resume}`,
      };
    }
    case 'awaiting-human':
      return pending.length > 0
        ? {
            label: `waiting for answers (${pending.length} pending)`,
            interrupted: false,
            next: `Answer with: maker answer --dir ${dir} <questionId> <option>, then: ${resume}`,
          }
        : {
            label: 'ready to resume (every question is answered)',
            interrupted: false,
            next: `Continue with: ${resume}`,
          };
    case 'cancelled':
      return { label: 'cancelled', interrupted: false, next: `Continue with: ${resume}` };
    case 'failed-checks':
      return {
        label: 'stopped before landing: its checks failed or could not run (failed-checks)',
        interrupted: false,
        next: `Land it anyway: maker answer --dir ${dir} --run ${run.id} q-root-veto accept, then: ${resume}`,
      };
    case 'failed':
      return {
        label: 'failed',
        interrupted: false,
        next: `Fix the cause (below), then: ${resume}`,
      };
    default:
      return { label: run.status, interrupted: false };
  }
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
