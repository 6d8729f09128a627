import type { Run } from '../tree/schema.js';

/**
 * The process driving a workspace's run now (the live holder of its lock, or this very process),
 * in words: `maker run, pid 4242`. `sure: false`: it holds the lock from another host, so whether
 * it still runs cannot be told from here.
 */
export interface Driver {
  readonly who: string;
  readonly sure: boolean;
}

/**
 * Where a run stands as a person reads it, in one word: the state file's status, told apart by
 * whether a process drives the run. A run saved as `running` that no process drives is
 * `interrupted` (its process died or was killed); a run waiting for answers that has none left
 * pending is `ready` to resume.
 */
export type RunPhase =
  | 'running'
  | 'interrupted'
  | 'waiting'
  | 'ready'
  | 'cancelled'
  | 'failed-checks'
  | 'failed'
  | 'done'
  | 'vetoed';

export interface Standing {
  readonly phase: RunPhase;
  /** The phase in a few words (`running (maker run, pid 4242)`, `interrupted (…)`). */
  readonly label: string;
  /** Saved as running, but no process drives it. */
  readonly interrupted: boolean;
  /** The command that moves the run on, in a sentence; absent when nothing is to be done. */
  readonly next?: string;
}

/** Whether the phase is a run at rest that `maker resume` moves on (its process is not running it). */
export function resumable(phase: RunPhase): boolean {
  return ['interrupted', 'waiting', 'ready', 'cancelled', 'failed-checks', 'failed'].includes(
    phase,
  );
}

/** Where `run` (in the repository `dir`) stands, given the process that drives it, if any. */
export function runStanding(run: Run, dir: string, driver: Driver | undefined): Standing {
  const resume = `maker resume --dir ${dir} --run ${run.id}`;
  const pending = run.questions.filter((q) => q.answer === undefined);
  switch (run.status) {
    case 'running':
      return driver !== undefined
        ? {
            phase: 'running',
            label: driver.sure
              ? `running (${driver.who})`
              : `running, as far as can be told (${driver.who} on another host)`,
            interrupted: false,
          }
        : {
            phase: 'interrupted',
            label: 'interrupted (its maker process is gone; nothing is lost)',
            interrupted: true,
            next: `Continue with: ${resume}`,
          };
    case 'awaiting-human':
      return pending.length > 0
        ? {
            phase: 'waiting',
            label: `waiting for answers (${pending.length} pending)`,
            interrupted: false,
            next: `Answer with: maker answer --dir ${dir} <questionId> <option>, then: ${resume}`,
          }
        : {
            phase: 'ready',
            label: 'ready to resume (every question is answered)',
            interrupted: false,
            next: `Continue with: ${resume}`,
          };
    case 'cancelled':
      return {
        phase: 'cancelled',
        label: 'cancelled',
        interrupted: false,
        next: `Continue with: ${resume}`,
      };
    case 'failed-checks':
      return {
        phase: 'failed-checks',
        label: 'stopped before landing: its checks failed or could not run (failed-checks)',
        interrupted: false,
        next: `Land it anyway: maker answer --dir ${dir} --run ${run.id} q-root-veto accept, then: ${resume}`,
      };
    case 'failed':
      return {
        phase: 'failed',
        label: 'failed',
        interrupted: false,
        next: `Fix the cause (below), then: ${resume}`,
      };
    case 'done':
    case 'vetoed':
      return { phase: run.status, label: run.status, interrupted: false };
  }
}
