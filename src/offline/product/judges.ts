import { OBVIOUS, type Flaw, type Rand, type Slip } from './render.js';

/** A code sample the fake wrote: the lines it holds (to recognise it in a diff) and what is wrong with it. */
export interface Written {
  readonly lines: ReadonlySet<string>;
  readonly flaw: Flaw;
  readonly slip: Slip;
}

/** A sample a reader takes for right: correct, or a plausible misconception, without a slip. */
export function looksRight(w: Written): boolean {
  return (w.flaw === 'correct' || w.flaw === 'misconception') && w.slip === 'none';
}

const REASONS = [
  'It does what the task asks, and nothing more.',
  'The most complete and correct option.',
  'Cleanest and on-task.',
];

/**
 * A judge's ballot: a right option with probability `accuracy` when there is one (else one of the
 * others), uniformly among them. `right` is undefined where the fake cannot tell.
 */
export function ballotAnswer(
  judged: readonly { label: string; right: boolean | undefined }[],
  rand: Rand,
  accuracy: number,
): string {
  const right = judged.filter((o) => o.right === true);
  const others = judged.filter((o) => o.right !== true);
  const pool = right.length > 0 && (others.length === 0 || rand(0) < accuracy) ? right : others;
  const choice = pool[Math.floor(rand(1) * pool.length)] ?? judged[0];
  return JSON.stringify({
    choice: choice?.label ?? 'A',
    reason: REASONS[Math.floor(rand(2) * 3)],
  });
}

/** Whether a ballot asks which earlier subtask caused a failure (`engine/trace.ts`). */
export function isBlameBallot(prompt: string): boolean {
  return /most likely cause of these failures/.test(prompt);
}

/**
 * A judge's answer to a blame ballot: shown the failing output and each earlier subtask's merged
 * result, it names (with probability `accuracy`) a result the fake wrote wrong (a misconception
 * too: the failing output gives it away), or the "None of these" option when every result shown
 * is right; otherwise another option, uniformly.
 */
export function blameAnswer(
  options: readonly { label: string; content: string }[],
  recall: (content: string) => Written | undefined,
  rand: Rand,
  accuracy: number,
): string {
  const none = options.filter((o) => /^\s*None of these/.test(o.content));
  const wrong = options.filter((o) => {
    const w = recall(o.content);
    return w !== undefined && (w.flaw !== 'correct' || w.slip !== 'none');
  });
  const cause = wrong.length > 0 ? wrong : none;
  const others = options.filter((o) => !cause.includes(o));
  const pool = cause.length > 0 && (others.length === 0 || rand(0) < accuracy) ? cause : others;
  const choice = pool[Math.floor(rand(1) * pool.length)] ?? options[0];
  return JSON.stringify({
    choice: choice?.label ?? 'A',
    reason: 'The failing output points at this result.',
  });
}

/**
 * A reviewer's verdict: suspect with probability (1 − accuracy) / 2 for a right answer, more for a
 * wrong one (`accuracy` for an obvious flaw or slip, half of it for a subtle one or a wrong plan).
 */
export function reviewAnswer(
  written: Written | undefined,
  wrongPlan: boolean,
  rand: Rand,
  accuracy: number,
): { suspect: boolean; text: string } {
  let suspectChance = (1 - accuracy) / 2;
  if (written !== undefined && !looksRight(written))
    suspectChance =
      OBVIOUS.has(written.flaw) || OBVIOUS.has(written.slip) ? accuracy : accuracy / 2;
  else if (wrongPlan) suspectChance = accuracy / 2;
  const suspect = rand(0) < suspectChance;
  const text = JSON.stringify({
    verdict: suspect ? 'suspect' : 'ok',
    confidence: Math.round((0.82 + rand(1) * 0.15) * 100) / 100,
    reason: suspect
      ? 'The change looks incomplete or wrong for the task.'
      : 'A faithful attempt at the task.',
  });
  return { suspect, text };
}
