import { access } from 'node:fs/promises';
import { join } from 'node:path';
import type { Run, TreeNode } from '../../core/tree/schema.js';
import type { Repository } from '../../ports/workspace.js';
import type { RealisticModel } from '../../offline/product/realistic-model.js';
import type { ProductIdea } from '../../offline/product/types.js';

/**
 * Why a MAKER product failed its hidden tests, read from the run's state and what the fake wrote:
 * - `upstream`: the run stopped at a later step while an earlier step's landed winner was wrong
 *   (the cause was upstream, the failure showed downstream);
 * - `halted`: the run stopped with every landed winner right (the step it stopped at was hard);
 * - `vote-lost`: it landed a wrong winner although a right candidate was valid in that vote;
 * - `weak-check`: it landed a wrong winner that passed its check, no right candidate valid;
 * - `plan`: every winner right, but files of the idea are missing (a wrong plan left them out);
 * - `other`: none of these (a merge or an integration broke it).
 */
export type FailureShape = 'upstream' | 'halted' | 'vote-lost' | 'weak-check' | 'plan' | 'other';

export const FAILURE_SHAPES: readonly FailureShape[] = [
  'upstream',
  'halted',
  'vote-lost',
  'weak-check',
  'plan',
  'other',
];

/** A landed leaf winner the fake wrote wrong. */
export interface WrongWinner {
  readonly node: string;
  readonly title: string;
  /** The fake's flaw (`misconception`, `off-by-one`, …) or `slip:<kind>`. */
  readonly flaw: string;
  /** A right candidate was valid in its vote. */
  readonly rightLost: boolean;
}

export interface RunDiagnosis {
  /** Why the product failed; absent when it passed. */
  readonly shape?: FailureShape;
  /** The run stopped for a decision only a person can make (`--hitl auto` could not). */
  readonly haltedForPerson: boolean;
  readonly wrongWinners: readonly WrongWinner[];
}

/** The leaf winners a run landed that the fake wrote wrong (read before its repository goes). */
export async function wrongWinners(
  run: Run,
  workspace: Repository,
  fake: RealisticModel,
): Promise<WrongWinner[]> {
  const found: WrongWinner[] = [];
  for (const n of Object.values(run.nodes)) {
    const wrong = await wrongWinner(n, workspace, fake);
    if (wrong !== undefined) found.push(wrong);
  }
  return found;
}

/**
 * The diagnosis of one MAKER run, once its hidden tests ran (`product`: where its landed tree was
 * exported, if it landed).
 */
export async function diagnose(
  run: { readonly status: string; readonly error?: string | undefined },
  wrong: readonly WrongWinner[],
  idea: ProductIdea,
  outcome: { readonly landed: boolean; readonly passed: boolean; readonly product: string },
): Promise<RunDiagnosis> {
  const haltedForPerson =
    run.status !== 'done' &&
    /person's decision is needed|cannot ask a person/.test(run.error ?? '');
  const wrongWinners = [...wrong];
  if (outcome.passed) return { haltedForPerson, wrongWinners };
  let shape: FailureShape;
  if (!outcome.landed) shape = wrongWinners.length > 0 ? 'upstream' : 'halted';
  else if (wrongWinners.some((w) => w.rightLost)) shape = 'vote-lost';
  else if (wrongWinners.length > 0) shape = 'weak-check';
  else shape = (await missingFiles(idea, outcome.product)) ? 'plan' : 'other';
  return { shape, haltedForPerson, wrongWinners };
}

/** Failed products by shape, and the runs that stopped for a person (all, and with an upstream cause). */
export function shapeCounts(runs: readonly { readonly diagnosis?: RunDiagnosis }[]): {
  shapes: Record<FailureShape, number>;
  haltedForPerson: number;
  upstreamHalts: number;
} {
  const shapes = Object.fromEntries(FAILURE_SHAPES.map((s) => [s, 0])) as Record<
    FailureShape,
    number
  >;
  let haltedForPerson = 0;
  let upstreamHalts = 0;
  for (const { diagnosis } of runs) {
    if (diagnosis === undefined) continue;
    if (diagnosis.shape !== undefined) shapes[diagnosis.shape] += 1;
    if (diagnosis.haltedForPerson) haltedForPerson += 1;
    if (diagnosis.haltedForPerson && diagnosis.shape === 'upstream') upstreamHalts += 1;
  }
  return { shapes, haltedForPerson, upstreamHalts };
}

async function wrongWinner(
  n: TreeNode,
  workspace: Repository,
  fake: RealisticModel,
): Promise<WrongWinner | undefined> {
  if (n.kind !== 'leaf' || n.status !== 'done' || n.commit === undefined) return undefined;
  if (n.baseCommit === undefined || n.leaf === undefined) return undefined;
  const base = n.baseCommit;
  const written = fake.writtenAs(await workspace.diff(base, await workspace.treeOf(n.commit)));
  if (written === undefined || (written.flaw === 'correct' && written.slip === 'none'))
    return undefined;
  // Losing candidates' trees are gone with the run's scratch store: the fake saw them reviewed.
  const rightLost = fake.passedRight(n.title);
  return {
    node: n.id,
    title: n.title,
    flaw: written.slip === 'none' ? written.flaw : `slip:${written.slip}`,
    rightLost,
  };
}

/** Whether a file of the idea's known decomposition is missing from the landed product. */
async function missingFiles(idea: ProductIdea, product: string): Promise<boolean> {
  for (const leaf of idea.leaves)
    for (const f of leaf.files)
      try {
        await access(join(product, f.path));
      } catch {
        return true;
      }
  return false;
}
