import { clip } from '../../core/limits.js';
import { hashString, shuffle, uniform } from '../../core/random.js';
import { ballotChoiceRule } from '../../core/red-flags/index.js';
import type { Draw, Reopen, TreeNode, VoteRecord } from '../../core/tree/schema.js';
import { isErrorLine, type CheckResult } from '../checks/checks.js';
import { ballotDraw } from '../split/decompose.js';
import { mayReopen, reopenBound, requestReopen, type ReopenRequested } from './reopen.js';
import { intentLine, nodeContext } from '../context/node-context.js';
import type { RunContext } from '../run/run-context.js';
import { plannerFor } from '../vote/node-planner.js';
import { exactVote } from '../vote/votes.js';

/** The key of the answer "none of them: the failing node's own doing". */
const NONE = 'none';
/** Suspects shown on one ballot, nearest first. */
const MAX_SUSPECTS = 6;

/** A failure to trace: where it showed, the checks that failed and the trees they failed on. */
export interface Failure {
  readonly kind: Reopen['trigger']['kind'];
  readonly node: TreeNode;
  readonly failing: readonly CheckResult[];
  /** Trees of the failing candidates (a derived check replays the command on them). */
  readonly trees: readonly string[];
  /** How many candidates (or checks) failed. */
  readonly count: number;
  /** The finished leaves whose results are in what failed, nearest first. */
  readonly suspects: readonly TreeNode[];
  /** Where the vote is kept in `node.blames` (a composition's failure); absent: `node.blame`. */
  readonly key?: string;
}

/**
 * When checks fail on a node's composed result (a merge that broke checks that passed below it,
 * or the node's own check): the failure to trace, if some finished leaf's result is in the tree
 * (the first `children` children's, and those in the node's base).
 */
export function compositionFailure(
  ctx: RunContext,
  n: TreeNode,
  failed: {
    readonly kind: 'merge' | 'parent-check';
    readonly key: string;
    readonly failing: readonly CheckResult[];
    readonly tree: string;
    readonly children: number;
  },
): Failure | undefined {
  const below = n.children
    .slice(0, failed.children)
    .reverse()
    .flatMap((id) => finishedLeaves(ctx, id));
  const suspects = [...below, ...upstreamLeaves(ctx, n)];
  if (failed.failing.length === 0 || suspects.length === 0) return undefined;
  return {
    kind: failed.kind,
    node: n,
    failing: failed.failing,
    trees: [failed.tree],
    count: failed.failing.length,
    suspects,
    key: failed.key,
  };
}

/**
 * When every candidate of a leaf failed, most of them on its check: the failure to trace, if some
 * finished leaf's result is in the leaf's base (else there is nothing upstream to blame).
 */
export function candidatesFailure(
  ctx: RunContext,
  n: TreeNode,
  record: VoteRecord,
): Failure | undefined {
  const failed = failedChecks(record);
  if (failed === undefined) return undefined;
  const suspects = upstreamLeaves(ctx, n);
  if (suspects.length === 0) return undefined;
  return { kind: 'candidates', node: n, ...failed, suspects };
}

/**
 * When every candidate reconciling a merge's conflicts in `n` failed, most of them on the checks
 * that passed below the merge: the failure to trace. The suspects are the finished leaves merged
 * so far (the child being merged and those before it: `mergeKey` is its index; any other key, a
 * moved default branch, suspects every child), nearest first, then those in `n`'s base.
 */
export function integrationFailure(
  ctx: RunContext,
  n: TreeNode,
  record: VoteRecord,
  mergeKey: string,
): Failure | undefined {
  const failed = failedChecks(record);
  if (failed === undefined) return undefined;
  const merged = /^\d+$/.test(mergeKey) ? Number(mergeKey) + 1 : n.children.length;
  const below = n.children
    .slice(0, merged)
    .reverse()
    .flatMap((id) => finishedLeaves(ctx, id));
  const suspects = [...below, ...upstreamLeaves(ctx, n)];
  if (suspects.length === 0) return undefined;
  return { kind: 'integration', node: n, ...failed, suspects, key: `integration-${mergeKey}` };
}

/** A vote's candidates that failed a check, when they are most of its draws. */
function failedChecks(
  record: VoteRecord,
): Pick<Failure, 'failing' | 'trees' | 'count'> | undefined {
  const failed = record.draws.filter(
    (d): d is Draw & { check: CheckResult } => d.status === 'flagged' && d.check?.ok === false,
  );
  if (failed.length === 0 || failed.length * 2 < record.draws.length) return undefined;
  return {
    failing: failed.map((d) => d.check),
    trees: [...new Set(failed.flatMap((d) => (d.tree === undefined ? [] : [d.tree])))].slice(0, 3),
    count: failed.length,
  };
}

/**
 * Traces a failure of `n`'s composed result ({@link compositionFailure}): the reopening to throw
 * when the vote names a finished subtask that may be reopened, else undefined (go on as without).
 */
export async function traceComposition(
  ctx: RunContext,
  n: TreeNode,
  failed: Parameters<typeof compositionFailure>[2],
): Promise<ReopenRequested | undefined> {
  const failure = compositionFailure(ctx, n, failed);
  return failure === undefined ? undefined : traceFailure(ctx, failure);
}

/**
 * The finished leaves whose results are in `n`'s base: at each level up the tree, the earlier
 * siblings merged before the head it (or its ancestor) started from, nearest first.
 */
export function upstreamLeaves(ctx: Pick<RunContext, 'run'>, n: TreeNode): TreeNode[] {
  const out: TreeNode[] = [];
  for (let p: TreeNode | undefined = n; p?.parentId != null; p = ctx.run.nodes[p.parentId]) {
    const parent = ctx.run.nodes[p.parentId];
    const need = p.dependsOn.length === 0 ? 0 : Math.max(...p.dependsOn) + 1;
    const before = (parent?.children ?? []).slice(0, need).reverse();
    for (const id of before) out.push(...finishedLeaves(ctx, id));
  }
  return out;
}

/** The finished leaves of the subtree at `id`, last first. */
export function finishedLeaves(ctx: Pick<RunContext, 'run'>, id: string): TreeNode[] {
  const n = ctx.run.nodes[id];
  if (n === undefined) return [];
  if (n.children.length > 0)
    return [...n.children].reverse().flatMap((c) => finishedLeaves(ctx, c));
  return n.kind === 'leaf' && n.status === 'done' && n.commit !== undefined ? [n] : [];
}

/**
 * Traces a failure to its cause by vote: judges are shown the failing checks' output, the node
 * where it showed, and each suspect (a finished leaf whose result is in what failed) with its
 * result, and pick the one most likely to have caused it, or none (the failing node's own doing).
 * Ballots are counted ahead by k, options shuffled per ballot. A composition's failure that a
 * reopening did not mend is not traced again, nor one whose suspects were reopened as often as the
 * bounds allow ({@link untraced}: said in a `not-reopened` event). When the vote settles on a suspect
 * that may still be reopened, the reopening is saved and returned (the caller throws it);
 * otherwise undefined, and the caller goes on as without it.
 */
export async function traceFailure(
  ctx: RunContext,
  failure: Failure,
): Promise<ReopenRequested | undefined> {
  const n = failure.node;
  const suspects = failure.suspects.filter((s) => mayReopen(ctx.run, s)).slice(0, MAX_SUSPECTS);
  const why = untraced(ctx, failure);
  if (suspects.length === 0 || why !== undefined) {
    if (why !== undefined) ctx.emit({ type: 'not-reopened', nodeId: n.id, reason: why });
    return undefined;
  }
  const outputs = distinctTails(failure.failing);
  const signature = firstErrorLine(outputs);
  const options = await Promise.all(
    suspects.map(async (s) => ({
      key: s.id,
      content: `Subtask ${s.id}, ${intentLine(s)}\nIts result, as merged:\n${clip(await ctx.workspace.diff(s.baseCommit as string, s.commit as string), 2500)}`,
    })),
  );
  options.push({
    key: NONE,
    content:
      failure.key === undefined
        ? `None of these: the cause is in "${n.title}" itself (its candidates, or its check), not in an earlier subtask.`
        : `None of these: the cause is in how the results were combined in "${n.title}" (or in its check), not in one subtask's result.`,
  });
  const question = `${failureWhere(failure)} What failed, the most common failures first:\n\n${outputs.map((o) => `$ ${o.command}\n${o.tail}`).join('\n\n')}\n\nWhich earlier finished subtask's result is the most likely cause of these failures? Each option shows a subtask whose result the failing work builds on. Pick the last option when none of them is the cause.`;
  const fresh = () => ({ attempt: 0, draws: [], ballots: [] });
  const record =
    failure.key === undefined
      ? (n.blame ??= fresh())
      : ((n.blames ??= {})[failure.key] ??= fresh());
  const salt = hashString(`${n.id}/blame/${failure.key ?? ''}/${ctx.run.reopens?.length ?? 0}`);
  // Blame ballots number their slots apart from the node's votes, per reopening.
  const planner = plannerFor(
    ctx,
    n,
    nodeContext(ctx, n),
    900_000 + (ctx.run.reopens?.length ?? 0) * 100,
  );
  const outcome = await exactVote(ctx, n, 'blame', record, async (slot) => {
    const order = shuffle(options, (i) => uniform(ctx.run.config.seed, salt, slot, i));
    const labelled = order.map((o, i) => ({ ...o, label: String.fromCharCode(65 + i) }));
    const shown = labelled.map(({ label, content }) => ({ label, content }));
    const draw = ballotDraw(await planner.castBallot(question, shown, slot));
    if (!draw.ok) return draw;
    const chosen = labelled.find((o) => o.label === draw.key);
    return chosen === undefined
      ? {
          ok: false,
          flags: ballotChoiceRule.check({
            choice: draw.key,
            options: labelled.map((o) => o.label),
            terse: true,
          }),
        }
      : { ok: true, key: chosen.key, value: chosen.label, summary: draw.summary };
  });
  const culprit = suspects.find((s) => s.id === outcome.key);
  if (outcome.status !== 'decided' || culprit === undefined) return undefined;
  return reopenCulprit(ctx, failure, culprit, signature);
}

/**
 * Saves and returns the reopening of `culprit`, the suspect the judges blamed for `failure`: its
 * winner is excluded from the new vote, and the failing check's output kept as evidence.
 */
function reopenCulprit(
  ctx: RunContext,
  failure: Failure,
  culprit: TreeNode,
  signature: string,
): Promise<ReopenRequested> {
  const n = failure.node;
  const winner = culprit.leaf?.outcome?.key;
  const alias = culprit.leaf?.draws.find((d) => d.key === winner && d.alias !== undefined)?.alias;
  const firstFailing = failure.failing[0];
  return requestReopen(ctx, {
    node: culprit.id,
    trigger: { node: n.id, kind: failure.kind, title: n.title },
    failures: failure.count,
    signature,
    ...(winner === undefined ? {} : { excluded: winner }),
    ...(alias === undefined ? {} : { excludedAlias: alias }),
    ...(failure.trees.length > 0 && firstFailing !== undefined
      ? {
          evidence: {
            command: firstFailing.command,
            trees: [...failure.trees],
            output: clip(firstFailing.output, 1500),
          },
        }
      : {}),
    replaced: culprit.commit,
    at: ctx.now().toISOString(),
  });
}

/**
 * Why a failure is not traced to an earlier subtask though some are in what failed, for the person
 * who decides next: it was traced and reopened before without mending it (the same node, kind and
 * first error line), or
 * the bounds on reopening are reached (`reopenBound`). Undefined: nothing stops tracing it.
 */
export function untraced(ctx: Pick<RunContext, 'run'>, failure: Failure): string | undefined {
  if (failure.suspects.length === 0 || failure.failing.length === 0) return undefined;
  const signature = firstErrorLine(distinctTails(failure.failing));
  if (failure.key !== undefined) {
    const before = (ctx.run.reopens ?? []).filter((r) => sameFailure(r, failure, signature));
    if (before.length > 0) {
      const names = [...new Set(before.map((r) => r.node))]
        .map((id) => `${id} (${ctx.run.nodes[id]?.title ?? '?'})`)
        .join(', ');
      return `MAKER reopened ${names} for this failure before (\`${signature}\`) and it was not mended: it reopens nothing more for it.`;
    }
  }
  return reopenBound(ctx.run, failure.suspects);
}

/** Whether reopening `r` was for the same failure: its node, kind and first error line. */
function sameFailure(r: Reopen, failure: Failure, signature: string): boolean {
  return (
    r.trigger.node === failure.node.id &&
    r.trigger.kind === failure.kind &&
    r.signature === signature
  );
}

/** Where the failure showed, for the judges. */
function failureWhere(failure: Failure): string {
  const { node: n, count } = failure;
  const checks = `${count} check${count === 1 ? '' : 's'}`;
  if (failure.kind === 'merge')
    return `Merging the subtasks of "${n.title}" broke ${checks} that passed on each result alone.`;
  if (failure.kind === 'integration')
    return `Merging the subtasks of "${n.title}" conflicted, and every candidate reconciling the conflict failed the checks that passed on each result alone (${count} of them).`;
  if (failure.kind === 'parent-check')
    return `The check of "${n.title}" failed on its composed result (${checks} failed), though each subtask passed its own.`;
  return `Every candidate for "${n.title}" failed its check (${count} of them).`;
}

/**
 * The failing checks' output, one excerpt per distinct one, the most frequent first (at most 3):
 * the lines that name an error (a test runner prints them far from the end), then the last lines.
 */
function distinctTails(failing: readonly CheckResult[]): { command: string; tail: string }[] {
  const counts = new Map<string, { command: string; tail: string; n: number }>();
  for (const r of failing) {
    const lines = r.output.trim().split('\n');
    const last = lines.slice(-20);
    const errors = [...new Set(lines.filter(isErrorLine))].filter((l) => !last.includes(l));
    const excerpt = [...errors.slice(0, 3), ...(errors.length > 0 ? ['…'] : []), ...last];
    const tail = clip(excerpt.join('\n'), 1200);
    const key = `${r.command}\n${tail}`;
    const seen = counts.get(key);
    if (seen === undefined) counts.set(key, { command: r.command, tail, n: 1 });
    else seen.n += 1;
  }
  return [...counts.values()].sort((a, b) => b.n - a.n).slice(0, 3);
}

/** The line of the failures that names the error (`SyntaxError: …`), else their last line. */
export function firstErrorLine(outputs: readonly { tail: string }[]): string {
  const lines = outputs.flatMap((o) => o.tail.split('\n').map((l) => l.trim()));
  const error = lines.find(isErrorLine);
  const line = (
    error ??
    lines.filter((l) => l !== '' && l !== '…').at(-1) ??
    'the check failed'
  ).replace(/^#\s*/, '');
  return clip(line, 160);
}
