import { NO_PROBE, probeAnswerFlags, probeKey, probeShape, type Probe } from '../../core/probe.js';
import type { DrawBehaviour } from '../../core/tree/probe-schema.js';
import type { TreeNode, VoteRecord } from '../../core/tree/schema.js';
import { behaviourKey, pooling, probeDigest } from '../../core/voting/behaviour.js';
import { checksRun, keptOutput, redactedRun } from './checks.js';
import { parseProbeAnswer } from '../vote/parse.js';
import { nodeContext, scopeOf } from '../context/node-context.js';
import type { RunContext } from '../run/run-context.js';
import { plannerFor } from '../vote/node-planner.js';
import { exactVote } from '../vote/votes.js';

/** How long a probe may run on one tree: it exercises an interface, it does not test a project. */
export const PROBE_TIMEOUT_MS = 30_000;

/**
 * Issue #36, votes on behaviour: before a leaf's code is sampled, a probe is sampled from its task
 * and acceptance criteria by planner calls that never see a candidate, red-flagged like any answer
 * (malformed, oversized, outside the leaf's files, a command that does not run it) and voted
 * first-to-ahead-by-k over its normalised text, as the acceptance test is. `{probe: null}` (nothing
 * to probe) is an answer. The winner is run on `base`, the tree the candidates start from: what it
 * prints there is what a candidate's run must differ from to key it (`voting/behaviour.ts`). Only
 * where checks run (off with `--no-checks`) and the planner writes probes. Saved on the node, so a
 * resume neither asks again nor reruns what is known.
 */
export async function voteProbe(ctx: RunContext, n: TreeNode, base: string): Promise<void> {
  const propose = plannerFor(ctx, n, nodeContext(ctx, n)).proposeProbe;
  if (propose === undefined || !checksRun(ctx.run)) return;
  const state = (n.probe ??= { vote: { attempt: 0, draws: [], ballots: [] } });
  if (state.status !== undefined) return;
  const scope = scopeOf(ctx, n);
  const outcome = await exactVote(ctx, n, 'probe', state.vote, async (slot) => {
    const sample = parseProbeAnswer(await propose(slot));
    if (!sample.ok) return { ok: false, flags: sample.flags };
    const probe = sample.value.probe;
    if (probe === null)
      return { ok: true, key: NO_PROBE, value: null, summary: sample.value.reason };
    const checked = probeAnswerFlags(probe, scope);
    return checked.ok
      ? { ok: true, key: probeKey(checked.probe), value: checked.probe }
      : { ok: false, flags: checked.flags };
  });
  const probe = outcome.status === 'decided' ? winningProbe(state.vote) : undefined;
  if (probe === undefined) {
    const reason =
      outcome.status !== 'decided'
        ? `its vote did not settle (${outcome.votes} : ${outcome.runnerUpVotes})`
        : 'the voters found nothing to probe';
    return settle(ctx, n, 'none', `No probe: ${reason}; candidates vote by their text.`);
  }
  const run = await runProbe(ctx, base, probe);
  const digest = run.ok ? probeDigest(run.output) : undefined;
  state.base = { ok: run.ok, output: keptOutput(run.output), ...(digest ? { digest } : {}) };
  return settle(
    ctx,
    n,
    'kept',
    `Probe ${probe.path} (\`${probe.command}\`): voted from the criteria; candidates that print the same under it vote together.`,
  );
}

async function settle(
  ctx: RunContext,
  n: TreeNode,
  status: 'kept' | 'none',
  reason: string,
): Promise<void> {
  const state = n.probe;
  if (state === undefined) return;
  state.status = status;
  state.reason = reason;
  await ctx.save(n);
  ctx.emit({ type: 'probe', nodeId: n.id, status, reason });
}

/** The probe the vote settled on (validated again: it comes back from the state file). */
function winningProbe(record: VoteRecord): Probe | undefined {
  const key = record.outcome?.key;
  if (key === undefined || key === NO_PROBE) return undefined;
  const draw = record.draws.find((d) => d.status === 'valid' && d.key === key);
  const parsed = probeShape.safeParse(draw?.value);
  return parsed.success ? parsed.data : undefined;
}

/** The leaf's kept probe, if it has one. */
export function keptProbe(n: TreeNode): Probe | undefined {
  return n.probe?.status === 'kept' ? winningProbe(n.probe.vote) : undefined;
}

/** Probe runs per run, by the tree run: candidates with one tree share one run, even at once. */
type ProbeRunResult = Promise<{ ok: boolean; output: string }>;
const runs = new WeakMap<object, Map<string, ProbeRunResult>>();

/**
 * Runs `probe` on `tree` with the probe file written in, in the sandbox (a paid slot, ahead of
 * work not yet started), within {@link PROBE_TIMEOUT_MS}; its output redacted, whole (to 64 KiB).
 */
function runProbe(
  ctx: RunContext,
  tree: string,
  probe: Probe,
): Promise<{ ok: boolean; output: string }> {
  let known = runs.get(ctx.run);
  if (known === undefined) runs.set(ctx.run, (known = new Map<string, ProbeRunResult>()));
  const key = `${tree}\n${probe.path}\n${probe.command}\n${probeKey(probe)}`;
  let run = known.get(key);
  if (run === undefined) {
    run = ctx.workspace
      .treeWithEdits(tree, [{ path: probe.path, content: probe.content }])
      .then((withProbe) =>
        ctx.paid(() => redactedRun(ctx, withProbe, probe.command, PROBE_TIMEOUT_MS), {
          ahead: true,
        }),
      );
    known.set(key, run);
    // A failed run (a cancelled one) is not known: it is tried again.
    run.catch(() => known.delete(key));
  }
  return run;
}

/**
 * A valid code candidate's behaviour under its leaf's kept probe (`tree` is the candidate's,
 * `text` its parse-normalised key), and the key it votes with: its behaviour key when the run
 * shows something of it, else `text`. Undefined behaviour when the leaf has no probe or checks
 * do not run.
 */
export async function behaviourOf(
  ctx: RunContext,
  n: TreeNode,
  tree: string,
  text: string,
): Promise<{ readonly key: string; readonly behaviour?: DrawBehaviour }> {
  const probe = keptProbe(n);
  if (probe === undefined || !checksRun(ctx.run)) return { key: text };
  const run = await runProbe(ctx, tree, probe);
  const found = behaviourKey(run, n.probe?.base?.digest);
  const output = keptOutput(run.output);
  return 'key' in found
    ? { key: found.key, behaviour: { ok: run.ok, output, text } }
    : { key: text, behaviour: { ok: run.ok, output, text, unused: found.unused } };
}

/** Tells the journal how the probe keyed a leaf's finished code vote, if it ran. */
export function sayPooling(ctx: RunContext, n: TreeNode, record: VoteRecord): void {
  const p = pooling(record);
  if (p !== undefined) ctx.emit({ type: 'behaviour-pooled', nodeId: n.id, ...p });
}
