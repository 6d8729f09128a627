import type { RunConfig } from './tree/schema.js';
import { SIMULATED_TITLE_PREFIX, SIMULATED_TRAILER, isSimulatedRun } from './tree/simulated.js';

/** A commit message as MAKER writes one: a subject line, a body, and MAKER's own trailers. */
export interface CommitParts {
  /** One line: a model's title may hold line breaks, which become spaces. */
  readonly subject: string;
  /** Free text, a model's summary among it: none of its lines can read as a trailer. */
  readonly body?: string | undefined;
  /** MAKER's trailers (`Maker-Node: n-0`), each kept on one line. Never empty. */
  readonly trailers: readonly string[];
}

/** A line git reads as a trailer: a token of letters, digits and `-`, then `:` (git's default separator). */
const TRAILER_SHAPED = /^(?:[A-Za-z0-9-]+[ \t]*:|\(cherry picked from commit )/;
/** A line where git's trailer parsing takes a patch to begin (`---` and white space). */
const DIVIDER = /^---(?:\s|$)/;

/** `text` on one line: every run of white space holding a line break becomes one space. */
function oneLine(text: string): string {
  return text.replace(/\s*[\r\n]+\s*/g, ' ').trim();
}

/**
 * Free text as a commit body that adds no trailer: a line shaped like one (`Signed-off-by: x`,
 * `Co-authored-by: …`, any `Token: value`) is indented, which git (and GitHub) never read as a
 * trailer; a line that would start git's patch divider is indented too (`git interpret-trailers`
 * looks for trailers just above one). Line ends become `\n`.
 */
export function commitBody(text: string): string {
  return text
    .replace(/\r\n?/g, '\n')
    .trim()
    .split('\n')
    .map((line) => (TRAILER_SHAPED.test(line) || DIVIDER.test(line) ? `  ${line}` : line))
    .join('\n');
}

/**
 * A commit message: the subject on one line, a blank line, the body (no trailers from it, see
 * {@link commitBody}), a blank line, then MAKER's trailers, the only ones the message has. A
 * simulated run's subject carries {@link SIMULATED_TITLE_PREFIX} and its trailers
 * {@link SIMULATED_TRAILER}.
 */
export function commitMessage(
  config: Pick<RunConfig, 'simulated' | 'planner'>,
  parts: CommitParts,
): string {
  const simulated = isSimulatedRun(config);
  const subject = oneLine(`${simulated ? SIMULATED_TITLE_PREFIX : ''}${parts.subject}`);
  const body = commitBody(parts.body ?? '');
  const trailers = [...parts.trailers, ...(simulated ? [SIMULATED_TRAILER] : [])].map(oneLine);
  return [
    DIVIDER.test(subject) ? ` ${subject}` : subject,
    ...(body === '' ? [] : [body]),
    trailers.join('\n'),
  ].join('\n\n');
}
