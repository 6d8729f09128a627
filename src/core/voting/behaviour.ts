import { createHash } from 'node:crypto';
import type { VoteRecord } from '../tree/schema.js';
import type { Pooling } from '../view/pooling.js';

/**
 * Behaviour keys (issue #36, votes on behaviour): a code candidate run with its leaf's probe is
 * keyed by what the probe printed, so candidates written differently that behave alike vote as one
 * class, and wrong ones that read alike separate from right ones.
 *
 * A probe's run keys a candidate only when it shows something of that candidate. It keys nothing
 * (the candidate keeps its parse-normalised key) when:
 * - it did not run to completion: it exited non-zero (a probe catches and prints what the code
 *   throws, so a non-zero exit is the probe crashing, e.g. on its own failed import), timed out,
 *   or could not be started;
 * - it printed nothing (after normalising);
 * - it printed exactly what it prints on the leaf's base, the tree without the leaf's code: it
 *   exercised nothing of the candidate.
 * So a useless probe never merges distinct candidates: each keeps its own text's class.
 */

/** The prefix of a behaviour key. */
export const BEHAVIOUR_PREFIX = 'behaviour:';

/** ANSI escape sequences (colours a runner prints). */
// eslint-disable-next-line no-control-regex -- matching the escape character is the point
const ANSI = /\u001b\[[0-9;?]*[A-Za-z]/g;

/** Lines that say where, not what: stack frames, Node's version line, Python's caret lines. */
const NOISE = [
  /^at\s.+/, // a JavaScript stack frame
  /^File ".*", line \d+/, // a Python traceback frame
  /^[~^]+$/, // Python's markers under a failing expression
  /^Node\.js v\d+/, // printed after an uncaught error
];

/**
 * A probe's output as it is compared: line endings and colours removed, each line trimmed, empty
 * lines, stack frames and version lines dropped (they say where the code is, not what it does).
 */
export function normalizeProbeOutput(output: string): string {
  return output
    .replace(/\r\n?/g, '\n')
    .replace(ANSI, '')
    .split('\n')
    .map((line) => line.trim())
    .filter((line) => line !== '' && !NOISE.some((re) => re.test(line)))
    .join('\n');
}

/** A probe's run on one tree: whether it exited 0 in time, and its output (redacted). */
export interface ProbeRun {
  readonly ok: boolean;
  readonly output: string;
}

/** The digest of a probe's output once normalised; undefined when it printed nothing. */
export function probeDigest(output: string): string | undefined {
  const normal = normalizeProbeOutput(output);
  return normal === '' ? undefined : createHash('sha256').update(normal).digest('hex');
}

/**
 * The behaviour key of a candidate's probe run, or why it has none (see the rule above).
 * `baseDigest` is the {@link probeDigest} of the probe's run on the leaf's base tree, when it ran
 * to completion there.
 */
export function behaviourKey(
  run: ProbeRun,
  baseDigest: string | undefined,
): { readonly key: string } | { readonly unused: string } {
  if (!run.ok)
    return { unused: 'the probe did not run to completion on it (it failed, or was stopped)' };
  const digest = probeDigest(run.output);
  if (digest === undefined) return { unused: 'the probe printed nothing' };
  if (digest === baseDigest)
    return { unused: 'the probe printed the same as without the code: it exercised none of it' };
  // The exit status is part of what was observed (always 0 here: see the rule above).
  return { key: `${BEHAVIOUR_PREFIX}exit0:${digest}` };
}

/** Whether a vote key is a behaviour key. */
export function isBehaviourKey(key: string | undefined): boolean {
  return key?.startsWith(BEHAVIOUR_PREFIX) === true;
}

/** How a vote's candidates were keyed by behaviour; undefined when no probe ran on any. */
export function pooling(record: VoteRecord): Pooling | undefined {
  const valid = record.draws.filter((d) => d.status === 'valid' && d.behaviour !== undefined);
  if (valid.length === 0) return undefined;
  const pooled = valid.filter((d) => isBehaviourKey(d.key));
  return {
    texts: new Set(pooled.map((d) => d.behaviour?.text)).size,
    behaviours: new Set(pooled.map((d) => d.key)).size,
    byText: valid.length - pooled.length,
  };
}
