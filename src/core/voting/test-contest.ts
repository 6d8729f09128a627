import { createHash } from 'node:crypto';
import type { Draw } from '../tree/schema.js';
import { BEHAVIOUR_PREFIX, normalizeProbeOutput } from './behaviour.js';
import { voteClasses } from './classes.js';

/**
 * A voted acceptance test contested by the code it judges (issue #36). The test was voted from the
 * leaf's criteria by samples that never saw code, so it is independent evidence, but a wrong test
 * repeats as identically as wrong code does, and wins its own vote the same way. Candidates that
 * pass the leaf's planned check and then fail the test *the same way* (the same assertion, the
 * same actual value), written *differently*, are independent samples agreeing on a behaviour the
 * test rejects. When they span k more texts than the largest class that passes the test, the test
 * is more likely wrong than they are, by the same margin that decides any vote.
 *
 * Texts, not samples, are counted: a wrong answer repeats word for word (real samples differ, and
 * wrong ones agree), so the same misconception failing a right test five times is one text, not
 * five voices. Candidates that fail the test in different ways agree on nothing and contest
 * nothing: a right test that rejects a spread of wrong answers stands.
 */

/** Lines that say when or where, not what: a runner's timings and a stack frame's position. */
const TIMING = [
  /\bduration_ms\b/, // node --test (TAP)
  /^Ran \d+ tests? in [\d.]+s$/, // Python's unittest
  /^(?:[#ℹ]\s*)?duration\b/i,
  /:\d+:\d+\)?$/, // a stack frame printed without "at" (node --test's YAML `stack`)
];

/**
 * The digest of how a candidate failed its leaf's acceptance test: the test's whole output,
 * normalised as a probe's is (colours, stack frames, blank lines dropped), timings dropped too.
 */
export function failureDigest(output: string): string {
  const normal = normalizeProbeOutput(output)
    .split('\n')
    .filter((line) => !TIMING.some((re) => re.test(line)))
    .join('\n');
  return createHash('sha256').update(normal).digest('hex');
}

/** The candidates that contest a leaf's acceptance test, and those that pass it, in texts. */
export interface TestContest {
  /** The distinct texts of the largest group of candidates that failed only the test, all alike. */
  readonly failing: number;
  /** The distinct texts of the largest class of candidates that passed it. */
  readonly passing: number;
  /** The slots of the failing group, earliest first. */
  readonly slots: readonly number[];
}

/**
 * The contest over a vote's draws at margin `k`: defined when the candidates flagged only for
 * failing the acceptance test (each carrying `contests`: the {@link failureDigest} of that failure
 * and its text's key) that failed it alike span at least k more distinct texts than the largest
 * class of valid candidates (a valid draw's text: its `alias`, else the text its behaviour key
 * pooled, else its key).
 */
export function testContest(
  draws: readonly (Draw | undefined)[],
  k: number,
): TestContest | undefined {
  const groups = new Map<string, Draw[]>();
  for (const d of draws) {
    if (d?.status !== 'flagged' || d.contests === undefined) continue;
    groups.set(d.contests.failure, [...(groups.get(d.contests.failure) ?? []), d]);
  }
  const textsOf = (members: readonly Draw[], text: (d: Draw) => string | undefined) =>
    new Set(members.map(text)).size;
  const [largest] = [...groups.values()]
    .map((members) => ({ members, texts: textsOf(members, (d) => d.contests?.text) }))
    .sort((a, b) => b.texts - a.texts);
  if (largest === undefined) return undefined;
  const passing = Math.max(
    0,
    ...voteClasses(draws).map((c) =>
      textsOf(c.members, (d) => d.alias ?? d.behaviour?.text ?? d.key),
    ),
  );
  if (largest.texts < k || largest.texts < passing + k) return undefined;
  return {
    failing: largest.texts,
    passing,
    slots: largest.members.map((d) => d.slot).sort((a, b) => a - b),
  };
}

/**
 * The key of a candidate under a contested test: how it fared (passed, or how it failed), with its
 * probe's behaviour key when the probe keyed it. Candidates written differently that fare alike
 * then vote together, as under a probe; a behaviour key, so the text that lands is voted inside it.
 */
export function testedKey(passed: boolean, output: string, probeKey: string | undefined): string {
  const fared = passed ? 'passed' : `failed ${failureDigest(output)}`;
  const digest = createHash('sha256')
    .update(`${probeKey ?? ''}\n${fared}`)
    .digest('hex');
  return `${BEHAVIOUR_PREFIX}exit0:${digest}`;
}

/**
 * Whether the code doubts a leaf's acceptance test: a candidate passed everything else (the planned
 * check, the review) and failed the test alone. A wrong test can win its own vote 2 : 0, its
 * misconception repeated word for word, and then every right candidate fails it; but a right test
 * is failed by wrong candidates too, so a doubt decides nothing itself: it asks the test's vote for
 * a wider margin ({@link testContest} is what takes a test's gate away), which costs a few test
 * samples and changes nothing when the test was right. One candidate is enough, as a rival class
 * with votes is for a narrow win (`adaptive-k.ts`): the test's vote saw no code when it settled.
 */
export function testDoubted(draws: readonly (Draw | undefined)[]): boolean {
  return draws.some((d) => d?.status === 'flagged' && d.contests !== undefined);
}
