import type { Run } from '../../../core/tree/schema.js';
import type { EngineEvent } from '../../../core/events.js';
import { summarise } from '../../../core/view/summary.js';
import type { CliIo } from '../io.js';
import { eventWords } from '../../view/log-text.js';

/**
 * A run's progress on stderr. On a terminal, one line redrawn in place; elsewhere (CI logs, pipes),
 * plain lines when a node is done, a question is asked or answered and the run ends. The counts are the run
 * summary's own (from the live run), so they always agree with what the run prints at the end.
 */
export function runProgress(io: CliIo, run: Run, now: () => number = Date.now) {
  /** Waits on services under way, by id: in the progress line, or a line each when not a terminal. */
  const waits = new Map<string, ShownWait>();
  /** What the line said after the counts, when no wait is shown. */
  let doing = '';
  const status = new StatusLine(
    io,
    () => `maker: ${runTotals(run)} · ${waitText(waits.values(), now()) ?? doing}`,
  );
  const line = (text: string) => io.stderr(`maker: ${text}\n`);
  return {
    /** Reports one of the run's events. */
    event(event: EngineEvent): void {
      const started = followWaits(waits, event);
      if (!io.stderrIsTty && started !== undefined) line(waitLine(started));
      status.tick(waits.size > 0);
      const notice = noticeOf(event);
      if (notice !== undefined) {
        status.erase();
        return line(notice);
      }
      if (io.stderrIsTty) {
        doing = eventWords(event);
        status.draw();
        return;
      }
      const plain = plainLine(event, run);
      if (plain !== undefined) line(plain);
    },
    /** Clears the terminal line (before a prompt or the final output). */
    clear(): void {
      status.clear();
    },
  };
}

/**
 * The progress line on a terminal: one line redrawn in place; while a wait is shown, redrawn each
 * second (its seconds count).
 */
class StatusLine {
  private blank = true;
  private ticker: NodeJS.Timeout | undefined;

  constructor(
    private readonly io: CliIo,
    private readonly text: () => string,
  ) {}

  draw(): void {
    // One line, cut to the terminal's width: a wrapped line could not be redrawn in place.
    const text = this.text();
    const width = this.io.columns ?? 0;
    this.io.stderr(
      `\r\x1b[2K${width > 1 && text.length > width - 1 ? `${text.slice(0, width - 2)}…` : text}`,
    );
    this.blank = false;
  }

  /** Redraws each second while `waiting` (on a terminal), no longer once it is not. */
  tick(waiting: boolean): void {
    if (waiting && this.io.stderrIsTty && this.ticker === undefined) {
      this.ticker = setInterval(() => {
        if (!this.blank) this.draw();
      }, 1000);
      this.ticker.unref();
    } else if (!waiting && this.ticker !== undefined) {
      clearInterval(this.ticker);
      this.ticker = undefined;
    }
  }

  /** Erases the line, for a line of its own below it. */
  erase(): void {
    if (this.io.stderrIsTty && !this.blank) this.io.stderr('\r\x1b[2K');
    this.blank = true;
  }

  /** Erases the line and stops its redrawing. */
  clear(): void {
    this.erase();
    clearInterval(this.ticker);
    this.ticker = undefined;
  }
}

/** The run summary's counts, as the progress says them. */
function runTotals(run: Run): string {
  const s = summarise(run);
  // Run totals, not the node's own; the tree grows as nodes split, so its size is "known so far".
  return `run totals ${s.samples} samples (${s.flagged} red-flagged) · ${s.done}/${s.nodes} nodes done (known so far)`;
}

/**
 * Follows the waits under way through `event`; returns the wait it starts, unless one already
 * shown waits on the same service for the same reason.
 */
function followWaits(waits: Map<string, ShownWait>, event: EngineEvent): ShownWait | undefined {
  let started: ShownWait | undefined;
  if (event.type === 'wait-start') {
    const shown = [...waits.values()].some(
      (w) => w.service === event.service && w.reason === event.reason,
    );
    waits.set(event.waitId, event);
    // Several slots wait out one outage: one line for them all.
    if (!shown) started = event;
  }
  if (event.type === 'wait-end') waits.delete(event.waitId);
  if (event.type === 'run-end') waits.clear();
  return started;
}

/**
 * News said on a line of its own, on a terminal too: checks that cannot run (said once per start:
 * the result will be unverified), and a pull request reopened after GitHub closed it.
 */
function noticeOf(event: EngineEvent): string | undefined {
  if (event.type === 'checks-unavailable') return event.reason;
  if (event.type === 'pull-request' && event.note !== undefined)
    return `pull request ${event.url} ${event.note}`;
  return undefined;
}

/** An event as a plain line (CI logs, pipes): a node done or merged, a question, the run's end. */
function plainLine(event: EngineEvent, run: Run): string | undefined {
  const node = 'nodeId' in event ? run.nodes[event.nodeId] : undefined;
  switch (event.type) {
    case 'commit-end':
      return `node ${event.nodeId} done: "${node?.title ?? ''}" committed · ${runTotals(run)}`;
    case 'merge-end':
      return `node ${event.child} merged into ${event.nodeId} · ${runTotals(run)}`;
    case 'merge-checks-failed':
      return `merging ${event.child} into ${event.nodeId} broke ${event.commands.length} check${event.commands.length === 1 ? '' : 's'} that passed below (${event.commands.join(', ')}): repairing it by a voted integration`;
    case 'node-reopened':
      return `${event.reason}: voting it again without that answer · ${runTotals(run)}`;
    case 'question-asked':
      return `question ${event.question.id} (${event.question.kind}): ${event.question.prompt}`;
    case 'question-answered': {
      const question = run.questions.find((q) => q.id === event.questionId);
      const option = question?.options.find((o) => o.id === event.answer);
      return `question ${event.questionId} answered${question?.answer?.auto === true ? ' automatically (--hitl auto)' : ''}: ${event.answer}${option === undefined ? '' : ` (${option.label})`}`;
    }
    case 'run-end':
      return `run ${run.id} ended: ${event.status} · ${runTotals(run)}`;
    default:
      return undefined;
  }
}

interface ShownWait {
  readonly service: string;
  readonly reason: string;
  readonly until: string;
  readonly since?: string | undefined;
}

/** The services behind a model: their waits say what they wait for, in the model's words. */
const MODEL_SERVICES = new Set(['gemini', 'vertex', 'gemini-cli']);

/**
 * The latest-ending wait per service, for the progress line: "waiting for jules until 10:12:03
 * UTC"; a model's in its own words: "rate limited, retrying in 30 s", "waiting on the model (42 s)".
 */
function waitText(waits: Iterable<ShownWait>, now: number): string | undefined {
  const latest = new Map<string, ShownWait>();
  for (const w of waits)
    if ((latest.get(w.service)?.until ?? '') < w.until) latest.set(w.service, w);
  if (latest.size === 0) return undefined;
  return [...latest.values()]
    .map((w) =>
      !MODEL_SERVICES.has(w.service)
        ? `waiting for ${w.service} until ${w.until.slice(11, 19)} UTC`
        : w.since !== undefined && w.reason === 'waiting on the model'
          ? `waiting on the model (${Math.max(0, Math.round((now - Date.parse(w.since)) / 1000))} s)`
          : w.reason,
    )
    .join(', ');
}

/** A wait as a line of its own (not a terminal). */
function waitLine(w: ShownWait): string {
  if (MODEL_SERVICES.has(w.service) && w.reason === 'waiting on the model')
    return `waiting on the model (${w.service}) since ${(w.since ?? '').slice(11, 19)} UTC, at most until ${w.until.slice(11, 19)} UTC`;
  return `waiting for ${w.service} until ${w.until.slice(11, 19)} UTC: ${w.reason}`;
}
