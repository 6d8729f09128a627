import type { Run } from '../../../core/tree/schema.js';
import type { EngineEvent } from '../../../engine/events.js';
import { summarise } from '../../../core/view/summary.js';
import type { CliIo } from '../io.js';
import { eventWords } from '../../view/log-text.js';

/**
 * A run's progress on stderr. On a terminal, one line redrawn in place; elsewhere (CI logs, pipes),
 * plain lines when a node is done, a question is asked or answered and the run ends. The counts are the run
 * summary's own (from the live run), so they always agree with what the run prints at the end.
 */
// eslint-disable-next-line max-lines-per-function -- over 80 lines: to be split by job (#40)
export function runProgress(io: CliIo, run: Run, now: () => number = Date.now) {
  let blank = true;
  /** Waits on services under way, by id: in the progress line, or a line each when not a terminal. */
  const waits = new Map<string, ShownWait>();
  /** What the line said after the counts, when no wait is shown. */
  let doing = '';
  /** On a terminal, while a wait is shown, the line is redrawn each second (its seconds count). */
  let ticker: NodeJS.Timeout | undefined;
  const draw = () => {
    // One line, cut to the terminal's width: a wrapped line could not be redrawn in place.
    const text = `maker: ${counts()} · ${waitText(waits.values(), now()) ?? doing}`;
    const width = io.columns ?? 0;
    io.stderr(
      `\r\x1b[2K${width > 1 && text.length > width - 1 ? `${text.slice(0, width - 2)}…` : text}`,
    );
    blank = false;
  };
  const tick = () => {
    if (waits.size > 0 && io.stderrIsTty && ticker === undefined) {
      ticker = setInterval(() => {
        if (!blank) draw();
      }, 1000);
      ticker.unref();
    } else if (waits.size === 0 && ticker !== undefined) {
      clearInterval(ticker);
      ticker = undefined;
    }
  };
  const counts = () => {
    const s = summarise(run);
    // Run totals, not the node's own; the tree grows as nodes split, so its size is "known so far".
    return `run totals ${s.samples} samples (${s.flagged} red-flagged) · ${s.done}/${s.nodes} nodes done (known so far)`;
  };
  const line = (text: string) => io.stderr(`maker: ${text}\n`);
  return {
    /** Reports one of the run's events. */
    event(event: EngineEvent): void {
      if (event.type === 'wait-start') {
        const shown = [...waits.values()].some(
          (w) => w.service === event.service && w.reason === event.reason,
        );
        waits.set(event.waitId, event);
        // Several slots wait out one outage: one line for them all.
        if (!io.stderrIsTty && !shown) line(waitLine(event));
      }
      if (event.type === 'wait-end') waits.delete(event.waitId);
      if (event.type === 'run-end') waits.clear();
      tick();
      // Said once per start, on a line of its own on a terminal too: the result will be unverified.
      // So is the news of the pull request (reopened after GitHub closed it).
      if (
        event.type === 'checks-unavailable' ||
        (event.type === 'pull-request' && event.note !== undefined)
      ) {
        if (io.stderrIsTty && !blank) io.stderr('\r\x1b[2K');
        blank = true;
        return line(
          event.type === 'checks-unavailable'
            ? event.reason
            : `pull request ${event.url} ${event.note ?? ''}`,
        );
      }
      if (io.stderrIsTty) {
        doing = eventWords(event);
        draw();
        return;
      }
      const node = 'nodeId' in event ? run.nodes[event.nodeId] : undefined;
      switch (event.type) {
        case 'commit-end':
          return line(`node ${event.nodeId} done: "${node?.title ?? ''}" committed · ${counts()}`);
        case 'merge-end':
          return line(`node ${event.child} merged into ${event.nodeId} · ${counts()}`);
        case 'merge-checks-failed':
          return line(
            `merging ${event.child} into ${event.nodeId} broke ${event.commands.length} check${event.commands.length === 1 ? '' : 's'} that passed below (${event.commands.join(', ')}): repairing it by a voted integration`,
          );
        case 'node-reopened':
          return line(`${event.reason}: voting it again without that answer · ${counts()}`);
        case 'question-asked':
          return line(
            `question ${event.question.id} (${event.question.kind}): ${event.question.prompt}`,
          );
        case 'question-answered': {
          const question = run.questions.find((q) => q.id === event.questionId);
          const option = question?.options.find((o) => o.id === event.answer);
          return line(
            `question ${event.questionId} answered${question?.answer?.auto === true ? ' automatically (--hitl auto)' : ''}: ${event.answer}${option === undefined ? '' : ` (${option.label})`}`,
          );
        }
        case 'run-end':
          return line(`run ${run.id} ended: ${event.status} · ${counts()}`);
        default:
          return;
      }
    },
    /** Clears the terminal line (before a prompt or the final output). */
    clear(): void {
      if (io.stderrIsTty && !blank) io.stderr('\r\x1b[2K');
      blank = true;
      clearInterval(ticker);
      ticker = undefined;
    },
  };
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
