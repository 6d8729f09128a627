import type { TreeChange } from '../../core/candidate-policy.js';
import { ancestors } from '../../core/candidate-policy.js';
import { credentialFlags } from '../../core/credential-scan.js';
import { editFormatRedFlags } from '../../core/edit-format.js';
import { MakerError } from '../../core/errors.js';
import { patchRedFlags } from '../../core/patch.js';
import {
  canonicalEdits,
  checkFailedRule,
  contentRedFlags,
  doesNotApplyRule,
  FAILURE_RULES,
  llmReviewRule,
  outputFlags,
  responseFlags,
  runRules,
  treeBuildFailedRule,
  treeRedFlags,
} from '../../core/red-flags/index.js';
import { codeKeys, type CodeKeys } from '../../core/voting/code-equivalence.js';
import type { RedFlag } from '../../core/voting/types.js';
import type { TreeNode } from '../../core/tree/schema.js';
import type { WorkerHooks, WorkerOutput, WorkerTask } from '../../ports/worker.js';
import { acceptanceFlag } from '../checks/acceptance-test.js';
import { testedBehaviour } from '../checks/acceptance-doubt.js';
import { behaviourOf } from '../checks/probe.js';
import { checksRun, failureExcerpt, runCheck, type CheckResult } from '../checks/checks.js';
import { parseReview } from '../vote/parse.js';
import { addCost } from '../run/cost.js';
import type { RunContext } from '../run/run-context.js';
import { plannerFor } from '../vote/node-planner.js';
import type { HeldSlot } from '../../core/semaphore.js';
import type { DrawResult } from '../vote/votes.js';
import { samplingOf } from '../vote/sampling.js';

/**
 * One code candidate, red-flagged. The worker's output becomes a tree at `task.baseCommit` (its
 * vote key), and everything is judged on that tree: any failure to build it, unsafe names, MAKER's
 * own files, modes, symlinks, sizes, scope and contents (the `output`, `tree` and `content` rules of
 * `core/red-flags/`), then the size of the change, an opt-in check, the leaf's acceptance test, and
 * a confident "suspect" from the LLM review, which judges it
 * against the task the worker was given (an integration's, not its node's). A candidate is data:
 * nothing here throws for what the worker produced.
 *
 * Paid work takes one of the run's paid slots while it runs, and only then: the worker's run
 * (unless the worker limits itself, `Worker.limitsItself`, as Jules does with its plan's
 * cap; in `first` when the caller took its slot already), then the check and the review, which go
 * ahead of work not yet started.
 */
export async function codeCandidate(
  ctx: RunContext,
  n: TreeNode,
  task: WorkerTask,
  slot: number,
  scope: readonly string[],
  hooks: WorkerHooks = {},
  first?: HeldSlot,
): Promise<DrawResult> {
  const out = await runWorker(ctx, n, task, slot, hooks, first);
  const externalId = out.externalId === undefined ? {} : { externalId: out.externalId };
  const flagged = (flags: readonly RedFlag[]): Extract<DrawResult, { ok: false }> => ({
    ok: false,
    flags,
    ...externalId,
  });
  if (!out.ok) {
    const flags = runRules(FAILURE_RULES, {
      output: out,
      maxFileBytes: ctx.run.config.maxFileBytes,
    });
    return out.needsFiles !== undefined && out.needsFiles.length > 0
      ? { ...flagged(flags), needsFiles: out.needsFiles }
      : flagged(flags);
  }
  const flags = responseFlags({
    response: { text: '', finishReason: out.finishReason },
    speaker: 'worker',
  });
  const built = await buildTree(ctx, task.baseCommit, out);
  if (!built.ok) return flagged([...flags, ...built.flags]);
  const { tree } = built;
  const integration = task.integration;
  flags.push(
    ...(await policyFlags(ctx, task.baseCommit, tree, scope, integration?.conflicts ?? [], out)),
  );
  if (flags.length > 0) return flagged(flags);
  const patch = await ctx.workspace.diff(task.baseCommit, tree);
  flags.push(...patchRedFlags(patch, { maxChangedLines: ctx.run.config.maxChangedLines }));
  const { check, flags: failed } =
    flags.length === 0 && checksRun(ctx.run) ? await plannedChecks(ctx, n, task, tree) : NO_CHECK;
  flags.push(...failed);
  // The leaf's acceptance test, voted from its criteria, after its planned check passed.
  const failedTest =
    flags.length === 0 && integration === undefined
      ? await acceptanceFlag(ctx, n, tree)
      : undefined;
  const checked = checkOf(check);
  if (failedTest !== undefined)
    return {
      ...flagged([failedTest.flag]),
      ...checked,
      // Its tree: the test's vote, doubted, runs its rival tests on it (`agreedWithCode`).
      tree,
      contests: {
        failure: failedTest.failure,
        text: (await candidateKeys(ctx, task.baseCommit, tree)).alias,
      },
    };
  if (flags.length === 0) flags.push(...(await reviewFlags(ctx, n, task, patch, slot)));
  // A failing check keeps its tree: a later reopening replays the check on it.
  if (flags.length > 0)
    return { ...flagged(flags), ...checked, ...(check?.ok === false ? { tree } : {}) };
  return {
    ...(await accepted(ctx, n, task, tree)),
    ...(out.summary === undefined ? {} : { summary: out.summary }),
    ...externalId,
    ...checked,
  };
}

/**
 * The worker's run for one candidate, counted on the node: in a paid slot unless the worker limits
 * itself, in `first` when the caller holds one.
 */
async function runWorker(
  ctx: RunContext,
  n: TreeNode,
  task: WorkerTask,
  slot: number,
  hooks: WorkerHooks,
  first: HeldSlot | undefined,
): Promise<WorkerOutput> {
  n.cost.workerRuns += 1;
  const sampled = { ...task, sampling: samplingOf(ctx.run.config, 'worker') };
  const run = () => ctx.worker.run(sampled, slot, ctx.signal, hooks);
  const out = await (ctx.worker.limitsItself === true
    ? run()
    : first !== undefined
      ? first.run(run)
      : ctx.paid(run));
  // The worker's own model requests (an LLM worker's; a Jules session's are its service's).
  addCost(n, 'worker', out.modelCalls ?? 0, out.tokens ?? 0);
  return out;
}

const NO_CHECK: { readonly check?: CheckResult; readonly flags: readonly RedFlag[] } = {
  flags: [],
};

/**
 * The candidate's planned checks (the task's, else its node's), in order until one fails, each in
 * a paid slot ahead of work not yet started. One result per candidate: the first that failed, else
 * the only one, else all of them as one.
 */
async function plannedChecks(
  ctx: RunContext,
  n: TreeNode,
  task: WorkerTask,
  tree: string,
): Promise<{ readonly check?: CheckResult; readonly flags: readonly RedFlag[] }> {
  const commands = task.checks ?? (n.check === undefined ? [] : [n.check]);
  let check: CheckResult | undefined;
  for (const command of commands) {
    const result = await ctx.paid(() => runCheck(ctx, tree, command), AHEAD);
    check =
      commands.length === 1 || !result.ok
        ? result
        : { command: commands.join(' && '), ok: true, output: '' };
    if (!result.ok)
      return {
        check,
        flags: checkFailedRule.check({
          command,
          ok: false,
          excerpt: failureExcerpt(result.output),
        }),
      };
  }
  return check === undefined ? NO_CHECK : { check, flags: [] };
}

/** The LLM review's flag of a change, judged against the task the worker was given. */
async function reviewFlags(
  ctx: RunContext,
  n: TreeNode,
  task: WorkerTask,
  patch: string,
  slot: number,
): Promise<readonly RedFlag[]> {
  const answer = await ctx.paid(
    () => plannerFor(ctx, n, task.context).reviewCandidate(patch, slot),
    AHEAD,
  );
  return llmReviewRule.check({ review: parseReview(answer), subject: 'change' });
}

/**
 * A valid candidate's vote: its class keys, and for a leaf its key by what its probe prints on it
 * where that shows something (under a contested acceptance test, also by how it fares under it).
 */
async function accepted(
  ctx: RunContext,
  n: TreeNode,
  task: WorkerTask,
  tree: string,
): Promise<Extract<DrawResult, { ok: true }>> {
  const keys = await candidateKeys(ctx, task.baseCommit, tree);
  const { key, behaviour } =
    task.integration === undefined
      ? await testedBehaviour(ctx, n, tree, await behaviourOf(ctx, n, tree, keys.key), keys.key)
      : { key: keys.key };
  return {
    ok: true,
    key,
    ...(behaviour === undefined ? {} : { behaviour }),
    alias: keys.alias,
    tree,
    value: undefined,
  };
}

const AHEAD = { ahead: true } as const;

const checkOf = (check: CheckResult | undefined) => (check === undefined ? {} : { check });

/**
 * A candidate's class keys (`core/voting/code-equivalence.ts`): the files it changes at `base`,
 * normalised, so candidates that differ in comments, layout or (with equal checks) local names vote
 * together.
 */
export async function candidateKeys(
  ctx: Pick<RunContext, 'workspace'>,
  base: string,
  tree: string,
): Promise<CodeKeys> {
  const changes = (await ctx.workspace.changes(base, tree)).filter(
    (c) => c.oldMode !== '160000' && c.newMode !== '160000',
  );
  const blobs = await ctx.workspace.readBlobs(
    changes.flatMap((c) => [c.oldBlob, c.newBlob].filter((b): b is string => b !== undefined)),
  );
  return codeKeys(
    changes.map((c) => ({
      path: c.path,
      before: c.oldBlob === undefined ? undefined : blobs.get(c.oldBlob),
      after: c.newBlob === undefined ? undefined : blobs.get(c.newBlob),
      ...(c.oldMode !== undefined && c.newMode !== undefined && c.oldMode !== c.newMode
        ? { mode: c.newMode }
        : c.oldMode === undefined && c.newMode !== undefined && c.newMode !== '100644'
          ? { mode: c.newMode }
          : {}),
    })),
  );
}

/**
 * The tree a worker's output produces at `base`, or why there is none: first what the output says
 * of itself (`outputFlags`: file count, sizes, edit paths, before anything is written), then a
 * patch that does not apply or anything git refuses. Edit paths in the harmless spellings models
 * write (`./a`, `a//b`, `a/./b`) are made canonical.
 */
async function buildTree(
  ctx: RunContext,
  base: string,
  out: Extract<WorkerOutput, { ok: true }>,
): Promise<{ ok: true; tree: string } | { ok: false; flags: readonly RedFlag[] }> {
  const early = outputFlags({ output: out, maxFileBytes: ctx.run.config.maxFileBytes });
  if (early.length > 0) return { ok: false, flags: early };
  try {
    if (out.edits === undefined) {
      const applied = await ctx.workspace.applyPatch(base, out.patch ?? '');
      return applied.ok
        ? applied
        : { ok: false, flags: doesNotApplyRule.check({ stage: 'apply', reason: applied.reason }) };
    }
    const read = canonicalEdits(out.edits);
    if (!read.ok) return read;
    return { ok: true, tree: await ctx.workspace.treeWithEdits(base, read.edits) };
  } catch (error) {
    // A transport failure (git's process killed under it, twice) is not the candidate's fault.
    if (error instanceof MakerError && error.isRetryable) throw error;
    const reason = (error as Error).message;
    return { ok: false, flags: treeBuildFailedRule.check({ stage: 'build', reason }) };
  }
}

/**
 * The `tree` and `content` red flags (`core/red-flags/`; omission markers only in whole-file
 * edits), on what git reports between base
 * and tree. An integration's `conflicts` are judged too where the candidate left them as they were:
 * the base holds their conflict markers.
 */
async function policyFlags(
  ctx: RunContext,
  base: string,
  tree: string,
  scope: readonly string[],
  conflicts: readonly string[],
  out: Extract<WorkerOutput, { ok: true }>,
): Promise<RedFlag[]> {
  const wholeFiles = out.edits !== undefined;
  const ws = ctx.workspace;
  const { allow, maxFileBytes } = ctx.run.config;
  const changes = await ws.changes(base, tree);
  const dirs = [...new Set(changes.flatMap((c) => ancestors(c.path)))];
  const baseModes = await ws.modes(base, dirs);
  const baseSymlinks = new Set(dirs.filter((d) => baseModes.get(d) === '120000'));
  const flags = treeRedFlags(changes, { scope, allow, maxFileBytes }, baseSymlinks);
  const written = changes.filter(
    (c): c is TreeChange & { newBlob: string } =>
      c.newBlob !== undefined &&
      c.newMode !== '160000' &&
      (c.newSize === undefined || c.newSize <= maxFileBytes),
  );
  const changed = new Set(changes.map((c) => c.path));
  const untouched = (
    await ws.readFiles(
      tree,
      conflicts.filter((p) => !changed.has(p)),
    )
  ).flatMap((f) => {
    if (f.content === null) return [];
    const bytes = Buffer.from(f.content);
    return [{ path: f.path, before: bytes, after: bytes }];
  });
  if (written.length === 0 && untouched.length === 0) return flags;
  const blobs = await ws.readBlobs([
    ...written.map((c) => c.newBlob),
    ...written.flatMap((c) => (c.oldBlob === undefined ? [] : [c.oldBlob])),
  ]);
  const contents = written.map((c) => ({
    path: c.path,
    before: c.oldBlob === undefined ? undefined : blobs.get(c.oldBlob),
    after: blobs.get(c.newBlob) ?? new Uint8Array(),
  }));
  const found = contentRedFlags([...contents, ...untouched], ctx.secrets);
  return [
    ...flags,
    ...found,
    ...(await credentialFlags(contents, found)),
    ...editFormatRedFlags(contents, { wholeFiles }),
  ];
}
