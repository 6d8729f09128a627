import type { Run } from '../../../core/tree/schema.js';
import type { EngineEvent } from '../../../engine/events.js';
import { summarise } from '../../../engine/summary.js';
import type { CliIo } from '../io.js';

/**
 * A run's progress on stderr. On a terminal, one line redrawn in place; elsewhere (CI logs, pipes),
 * plain lines when a node is done, a question is asked or answered and the run ends. The counts are the run
 * summary's own (from the live run), so they always agree with what the run prints at the end.
 */
export function runProgress(io: CliIo, run: Run) {
  let blank = true;
  /** Waits on services under way, by id: in the progress line, or a line each when not a terminal. */
  const waits = new Map<string, { service: string; reason: string; until: string }>();
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
        if (!io.stderrIsTty && !shown)
          line(
            `waiting for ${event.service} until ${event.until.slice(11, 19)} UTC: ${event.reason}`,
          );
      }
      if (event.type === 'wait-end') waits.delete(event.waitId);
      // Said once per start, on a line of its own on a terminal too: the result will be unverified.
      if (event.type === 'checks-unavailable') {
        if (io.stderrIsTty && !blank) io.stderr('\r\x1b[2K');
        blank = true;
        return line(event.reason);
      }
      if (io.stderrIsTty) {
        io.stderr(
          `\r\x1b[2Kmaker: ${counts()} · ${waitText(waits.values()) ?? `${event.type}${'nodeId' in event ? ` ${event.nodeId}` : ''}`}`,
        );
        blank = false;
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
    },
  };
}

/** The latest-ending wait per service, for the progress line: "waiting for jules until 10:12:03 UTC". */
function waitText(waits: Iterable<{ service: string; until: string }>): string | undefined {
  const latest = new Map<string, string>();
  for (const w of waits)
    if ((latest.get(w.service) ?? '') < w.until) latest.set(w.service, w.until);
  if (latest.size === 0) return undefined;
  return [...latest]
    .map(([service, until]) => `waiting for ${service} until ${until.slice(11, 19)} UTC`)
    .join(', ');
}
