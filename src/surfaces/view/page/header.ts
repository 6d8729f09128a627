import type { RunPhase } from '../../../core/view/standing.js';
import type { Answering, ViewRun } from '../protocol.js';
import { h } from './dom.js';

/** Each phase as the run's badge says it. */
const PHASE_WORDS: Readonly<Record<RunPhase, string>> = {
  running: 'running',
  interrupted: 'interrupted',
  waiting: 'waiting for answers',
  ready: 'answered: waiting for maker resume',
  cancelled: 'cancelled',
  'failed-checks': 'failed-checks',
  failed: 'failed',
  done: 'done',
  vetoed: 'vetoed',
};

/**
 * The run's badge: live (a process drives it), interrupted (saved as running, its process gone),
 * waiting, or finished — the process that drives it, or what to do, in its title.
 */
export function phasePill(run: ViewRun): HTMLElement {
  return h(
    'span',
    {
      class: `pill run-${run.phase}`,
      title: run.standing,
      data: { runStatus: run.status, phase: run.phase },
    },
    PHASE_WORDS[run.phase],
  );
}

/** What ran on the result: verified, unverified, or pending while none could have run yet. */
export function checksPill(run: ViewRun): HTMLElement {
  const [kind, text] = run.verified
    ? ['verified', 'VERIFIED']
    : run.checksPending
      ? ['checks-pending', 'checks pending']
      : ['unverified', 'UNVERIFIED'];
  return h('span', { class: `pill ${kind}`, title: run.checks, data: { checks: kind } }, text);
}

/** A run's name in the list of the workspace's runs. */
export function runLabel(run: { id: string; phase: RunPhase }): string {
  return `${run.id} (${PHASE_WORDS[run.phase]})`;
}

/**
 * What the person does next when no process drives the run and nothing stops them from doing it
 * now: `maker resume`, once the questions shown (if any) are answered.
 */
export function nextStep(run: ViewRun, answering: Answering, pending: number): HTMLElement | null {
  const resume = answering.resume;
  if (resume === undefined || answering.driver !== null) return null;
  const lead = (() => {
    switch (run.phase) {
      case 'ready':
        return 'Every question is answered and saved: now run ';
      case 'waiting':
        return null;
      case 'interrupted':
        return pending > 0
          ? 'Interrupted, its maker process gone (nothing is lost): answer below, then run '
          : 'Interrupted, its maker process gone (nothing is lost): now run ';
      case 'cancelled':
        return pending > 0
          ? 'Stopped (nothing is lost): answer below, then run '
          : 'Stopped (nothing is lost): now run ';
      case 'failed':
        return 'Fix the cause shown, then run ';
      default:
        return null;
    }
  })();
  if (lead === null) return null;
  return h(
    'span',
    { class: 'next-step', attrs: { role: 'status' } },
    lead,
    h('code', {}, resume),
    ' to continue.',
  );
}
