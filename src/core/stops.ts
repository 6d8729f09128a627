import { MakerError } from './errors.js';

/**
 * How a command stops short of a run, with its exit status and what the person does next: one
 * table, used by every refusal, so the same situation always reads and exits the same.
 *
 * - `refused`: nothing exists yet (checks, or the first GitHub write refused): exit 2, and nothing
 *   was created or changed.
 * - `rate-limited`: as `refused`, but because a service's rate limit stopped the checks or the
 *   first write: exit 75 (sysexits' EX_TEMPFAIL: try again later), not 2, which says the command
 *   itself is wrong; the message says when to run the same command again.
 * - `start-failed`: something was set up (a repository created, a clone made) but no run was
 *   started: exit 1; the start is recorded, and `maker resume` picks up what was set up.
 */
export const STOPS = {
  refused: { exit: 2, next: 'Nothing was created or changed.' },
  'rate-limited': { exit: 75, next: 'Nothing was created or changed.' },
  'start-failed': {
    exit: 1,
    next: 'The run was not started, its start is recorded: fix the cause, then `maker resume` finishes it (it picks up what was set up).',
  },
} as const satisfies Readonly<Record<string, { readonly exit: number; readonly next: string }>>;

export type StopKind = keyof typeof STOPS;

/** A stop from the table: its message ends with the kind's next step (and `then`, when given). */
export class StopError extends MakerError {
  override readonly name = 'StopError';
  readonly kind: StopKind;
  readonly exit: number;

  constructor(kind: StopKind, message: string, options: { then?: string; cause?: unknown } = {}) {
    const next = [STOPS[kind].next, options.then].filter(Boolean).join(' ');
    super(`stop-${kind}`, `${message.trimEnd()}\n${next}`, {
      ...(options.cause === undefined ? {} : { cause: options.cause }),
    });
    this.kind = kind;
    this.exit = STOPS[kind].exit;
  }

  /** Nothing was created or changed: the start leaves nothing behind (not even its record). */
  get nothingMade(): boolean {
    return this.kind !== 'start-failed';
  }
}
