import type { Run, TreeNode } from '../core/tree/schema.js';
import { voteRecords } from './summary.js';
import type { RunContext } from './run-context.js';

const CHECK_TIMEOUT_MS = 120_000;

/** A check's outcome as the state keeps it: the command, whether it passed, its output's tail. */
export interface CheckResult {
  readonly command: string;
  readonly ok: boolean;
  readonly output: string;
}

/**
 * Runs `command` on `tree` in the workspace's sandboxed scratch checkout, with the tree's
 * dependencies installed as the run's `install` says; cancelled with the run (`AbortedError`: a
 * check cut short is no result).
 */
export async function runCheck(
  ctx: Pick<RunContext, 'workspace'> & {
    readonly signal?: AbortSignal;
    readonly run?: { readonly config: { readonly install?: string | undefined } };
  },
  tree: string,
  command: string,
): Promise<CheckResult> {
  const result = await ctx.workspace.runCheck(tree, command, CHECK_TIMEOUT_MS, ctx.signal, {
    install: ctx.run?.config.install,
  });
  return { command, ok: result.ok, output: result.output.slice(-600) };
}

/**
 * The root's overall check on the composed result, run once before the final veto (its result is
 * kept on the run, so a resume does not run it again).
 */
export async function finalCheck(
  ctx: RunContext,
  root: TreeNode,
  commit: string,
): Promise<CheckResult | undefined> {
  if (root.check === undefined) return undefined;
  if (ctx.run.finalCheck?.commit === commit) return ctx.run.finalCheck;
  const result = { ...(await runCheck(ctx, commit, root.check)), commit };
  ctx.run.finalCheck = result;
  await ctx.save();
  return result;
}

/** What ran before the veto, for the person deciding: candidates' checks and the overall one. */
export function checkSummary(run: Run): string | undefined {
  let passed = 0;
  let failed = 0;
  for (const n of Object.values(run.nodes))
    for (const r of voteRecords(n))
      for (const d of r.draws) {
        if (d.check?.ok === true) passed += 1;
        if (d.flags.some((f) => f.rule === 'check-failed')) failed += 1;
      }
  const parts: string[] = [];
  if (passed + failed > 0)
    parts.push(
      `${passed + failed} candidate check${passed + failed === 1 ? '' : 's'} ran: ${passed} passed, ${failed} failed (those candidates were discarded)`,
    );
  const overall = run.finalCheck;
  if (overall !== undefined)
    parts.push(
      `the overall check \`${overall.command}\` ${overall.ok ? 'passed' : `FAILED:\n${overall.output.slice(-400)}`}`,
    );
  return parts.length === 0 ? undefined : `Checks: ${parts.join('; ')}.`;
}
