import {
  ancestors,
  contentRedFlags,
  treeRedFlags,
  type TreeChange,
} from '../core/candidate-policy.js';
import { editSizes, oversized, patchSizes } from '../core/candidate-sizes.js';
import { credentialFlags } from '../core/credential-scan.js';
import { LIMITS } from '../core/limits.js';
import { editFormatRedFlags } from '../core/edit-format.js';
import { MakerError } from '../core/errors.js';
import { patchRedFlags } from '../core/patch.js';
import { normalizeRepoPath, showPath } from '../core/paths.js';
import { codeKeys, type CodeKeys } from '../core/voting/code-equivalence.js';
import type { RedFlag } from '../core/voting/types.js';
import type { TreeNode } from '../core/tree/schema.js';
import type { WorkerHooks, WorkerOutput, WorkerTask } from '../ports/worker.js';
import type { FileEdit } from '../ports/workspace.js';
import { acceptanceFlag } from './acceptance-test.js';
import { testedBehaviour } from './acceptance-doubt.js';
import { behaviourOf } from './probe.js';
import { checksRun, failureExcerpt, runCheck, type CheckResult } from './checks.js';
import { parseReview, REVIEW_THRESHOLD } from './parse.js';
import { addCost, type RunContext } from './run-context.js';
import { plannerFor } from './node-planner.js';
import type { HeldSlot } from './semaphore.js';
import type { DrawResult } from './votes.js';
import { samplingOf } from './sampling.js';

/**
 * One code candidate, red-flagged. The worker's output becomes a tree at `task.baseCommit` (its
 * vote key), and everything is judged on that tree: any failure to build it, unsafe names, MAKER's
 * own files, modes, symlinks, sizes, scope and contents (`candidate-policy.ts`), then the size of
 * the change, an opt-in check, and a confident "suspect" from the LLM review, which judges it
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
  n.cost.workerRuns += 1;
  const sampled = { ...task, sampling: samplingOf(ctx.run.config, 'worker') };
  const run = () => ctx.worker.run(sampled, slot, ctx.signal, hooks);
  const out = await (ctx.worker.limitsItself === true
    ? run()
    : first !== undefined
      ? first.run(run)
      : ctx.paid(run));
  const externalId = out.externalId === undefined ? {} : { externalId: out.externalId };
  const flagged = (flags: readonly RedFlag[]): DrawResult => ({ ok: false, flags, ...externalId });
  // The worker's own model requests (an LLM worker's; a Jules session's are its service's).
  addCost(n, 'worker', out.modelCalls ?? 0, out.tokens ?? 0);
  if (!out.ok && out.needsFiles !== undefined && out.needsFiles.length > 0)
    return {
      ok: false,
      flags: [{ rule: 'needs-files', message: out.reason }],
      ...externalId,
      needsFiles: out.needsFiles,
    };
  if (!out.ok) return flagged([{ rule: out.rule ?? 'worker-failed', message: out.reason }]);
  const flags: RedFlag[] = [];
  if (out.finishReason === 'length')
    flags.push({ rule: 'truncated', message: "The worker's answer reached its output cap." });
  if (out.finishReason === 'safety' || out.finishReason === 'other')
    flags.push({
      rule: 'abnormal-stop',
      message: `The worker's model stopped with reason "${out.finishReason}".`,
    });
  const built = await buildTree(ctx, task.baseCommit, out);
  if (!built.ok) return flagged([...flags, ...built.flags]);
  const { tree } = built;
  flags.push(
    ...(await policyFlags(
      ctx,
      task.baseCommit,
      tree,
      scope,
      task.integration?.conflicts ?? [],
      out.edits !== undefined,
    )),
  );
  if (flags.length > 0) return flagged(flags);
  const patch = await ctx.workspace.diff(task.baseCommit, tree);
  flags.push(...patchRedFlags(patch, { maxChangedLines: ctx.run.config.maxChangedLines }));
  let check: CheckResult | undefined;
  const commands = task.checks ?? (n.check === undefined ? [] : [n.check]);
  if (flags.length === 0 && checksRun(ctx.run))
    for (const command of commands) {
      const result = await ctx.paid(() => runCheck(ctx, tree, command), AHEAD);
      // One result per candidate: the first that failed, else the only one, else all of them.
      check =
        commands.length === 1 || !result.ok
          ? result
          : { command: commands.join(' && '), ok: true, output: '' };
      if (!result.ok) {
        flags.push({
          rule: 'check-failed',
          message: `\`${command}\` failed: ${failureExcerpt(result.output)}`,
        });
        break;
      }
    }
  // The leaf's acceptance test, voted from its criteria, after its planned check passed.
  const failedTest =
    flags.length === 0 && task.integration === undefined
      ? await acceptanceFlag(ctx, n, tree)
      : undefined;
  if (failedTest !== undefined)
    return {
      ok: false,
      flags: [failedTest.flag],
      ...externalId,
      ...checkOf(check),
      // Its tree: the test's vote, doubted, runs its rival tests on it (`agreedWithCode`).
      tree,
      contests: {
        failure: failedTest.failure,
        text: (await candidateKeys(ctx, task.baseCommit, tree)).alias,
      },
    };
  const checked = checkOf(check);
  if (flags.length === 0) {
    const review = parseReview(
      await ctx.paid(() => plannerFor(ctx, n, task.context).reviewCandidate(patch, slot), AHEAD),
    );
    // A malformed review is ignored, never trusted.
    if (
      review.ok &&
      review.value.verdict === 'suspect' &&
      review.value.confidence >= REVIEW_THRESHOLD
    )
      flags.push({
        rule: 'llm-review',
        message: `Review: ${review.value.reason || 'the change looks off-task or confused.'}`,
      });
  }
  // A failing check keeps its tree: a later reopening replays the check on it.
  if (flags.length > 0)
    return { ...flagged(flags), ...checked, ...(check?.ok === false ? { tree } : {}) };
  const keys = await candidateKeys(ctx, task.baseCommit, tree);
  // A leaf's candidates are keyed by what its probe prints on them, where that shows something.
  // Under a contested acceptance test, also by how it fares under that test.
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
    ...(out.summary === undefined ? {} : { summary: out.summary }),
    ...externalId,
    ...checked,
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
 * The tree a worker's output produces at `base`, or why there is none. Edit paths in the harmless
 * spellings models write (`./a`, `a//b`, `a/./b`) are made canonical; unsafe or repeated ones,
 * a patch that does not apply, and anything git refuses are red flags.
 */
async function buildTree(
  ctx: RunContext,
  base: string,
  out: Extract<WorkerOutput, { ok: true }>,
): Promise<{ ok: true; tree: string } | { ok: false; flags: RedFlag[] }> {
  const files = out.edits?.length ?? (out.patch ?? '').match(/^diff --git /gm)?.length ?? 0;
  if (files > LIMITS.candidateFiles)
    return {
      ok: false,
      flags: [
        {
          rule: 'too-many-files',
          message: `The candidate touches ${files} files, over the limit of ${LIMITS.candidateFiles} a candidate may write or delete.`,
        },
      ],
    };
  // Sizes before anything is written: a file over the limit never becomes an object on disk.
  const { maxFileBytes } = ctx.run.config;
  const big = oversized(
    out.edits === undefined ? patchSizes(out.patch ?? '') : editSizes(out.edits),
    maxFileBytes,
  );
  if (big.length > 0)
    return {
      ok: false,
      flags: [
        {
          rule: 'oversized-file',
          message: `The candidate writes files over ${maxFileBytes} bytes: ${big
            .slice(0, 5)
            .map((s) => `${showPath(s.path)} (${s.bytes} bytes)`)
            .join(', ')}${big.length > 5 ? ` and ${big.length - 5} more` : ''}.`,
        },
      ],
    };
  try {
    if (out.edits === undefined) {
      const applied = await ctx.workspace.applyPatch(base, out.patch ?? '');
      return applied.ok
        ? applied
        : {
            ok: false,
            flags: [
              {
                rule: 'does-not-apply',
                message: `The patch does not apply at its base: ${applied.reason}`,
              },
            ],
          };
    }
    const edits: FileEdit[] = [];
    const problems: RedFlag[] = [];
    const seen = new Set<string>();
    for (const edit of out.edits) {
      const normal = normalizeRepoPath(edit.path);
      if (!normal.ok)
        problems.push({
          rule: 'unsafe-path',
          message: `The candidate writes ${showPath(edit.path)}: ${normal.reason}.`,
        });
      else if (seen.has(normal.path))
        problems.push({
          rule: 'duplicate-path',
          message: `The candidate writes ${showPath(normal.path)} more than once.`,
        });
      else {
        seen.add(normal.path);
        edits.push({ path: normal.path, content: edit.content });
      }
    }
    if (problems.length > 0) return { ok: false, flags: problems };
    return { ok: true, tree: await ctx.workspace.treeWithEdits(base, edits) };
  } catch (error) {
    // A transport failure (git's process killed under it, twice) is not the candidate's fault.
    if (error instanceof MakerError && error.isRetryable) throw error;
    return {
      ok: false,
      flags: [
        {
          rule: 'tree-build-failed',
          message: `The candidate's files could not be turned into a tree: ${(error as Error).message}`,
        },
      ],
    };
  }
}

/**
 * The tree and content red flags of `candidate-policy.ts` and the edit-format ones of
 * `edit-format.ts` (omission markers only in whole-file edits), on what git reports between base
 * and tree. An integration's `conflicts` are judged too where the candidate left them as they were:
 * the base holds their conflict markers.
 */
async function policyFlags(
  ctx: RunContext,
  base: string,
  tree: string,
  scope: readonly string[],
  conflicts: readonly string[],
  wholeFiles: boolean,
): Promise<RedFlag[]> {
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
