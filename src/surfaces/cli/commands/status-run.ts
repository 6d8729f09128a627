import { checksSentence, nodeCheckCounts } from '../../../core/checks.js';
import { resolve } from 'node:path';
import { UsageError } from '../../../core/errors.js';
import type { Run } from '../../../core/tree/schema.js';
import {
  describeWaits,
  githubLines,
  renderNode,
  renderTree,
  summarise,
  type RunSummary,
} from '../../../core/view/summary.js';
import { reopenLine } from '../../../core/view/reopens.js';
import { sessionUrlOf } from '../../../app/workers/index.js';
import { FINISH_START, intentLine, madeBy } from '../../../app/start/start-intent.js';
import { standingOf, workspaceDriver } from '../../../app/run-status.js';
import { chosenRun, runJournal, workspaceRuns } from '../../../app/read-runs.js';
import { hitlWords, questionLines, roleLines, traceLines } from './status-text.js';
import { existingDirectory } from './common.js';
import type { statusCommand } from './status.js';
import type { CliContext, InputOf } from '../define.js';

/** `maker status`, loaded when it runs (see status.ts for its options and help). */
export async function run(
  { options: o }: InputOf<typeof statusCommand>,
  { io }: CliContext,
): Promise<number> {
  const dir = resolve(o.dir ?? io.cwd);
  await existingDirectory(dir, o.dir !== undefined);
  const found = await workspaceRuns(dir);
  const { runs } = found;
  const starting = found.state.starting;
  if (starting !== undefined && (o.run === undefined || o.run === starting.id)) {
    // A start before its run was saved: under way (its process holds the lock), or interrupted.
    const driver = await workspaceDriver(dir);
    const live = driver !== undefined;
    const label = live
      ? `starting (${driver.who})`
      : 'interrupted while starting (its maker process is gone)';
    const next = live
      ? undefined
      : `Continue with: maker resume --dir ${dir}. ${FINISH_START} What it may have made: ${madeBy(starting)}.`;
    if (o.json === true)
      io.stdout(
        `${JSON.stringify({ id: starting.id, status: 'starting', idea: starting.idea, standing: label, interrupted: !live, next: next ?? null, starting, runs: runs.map((r) => ({ id: r.id, status: r.status, idea: r.idea })) })}\n`,
      );
    else
      io.stdout(
        `${intentLine(starting).replace(' — interrupted while starting', ` — ${label}`)}\n${next === undefined ? '' : `\n${next}\n`}`,
      );
    return 0;
  }
  const run = chosenRun(found, o.run);
  if (o.node !== undefined) {
    const detail = renderNode(run, o.node, sessionUrlOf(run.config.worker));
    if (detail === undefined)
      throw new UsageError(
        `Run ${run.id} has no node "${o.node}". Nodes: ${Object.keys(run.nodes).join(', ')}.`,
      );
    io.stdout(`${detail}\n`);
    return 0;
  }
  const trace = o.trace === true ? await runJournal(dir, run.id) : undefined;
  const standing = await standingOf(run, dir);
  if (o.json === true) {
    io.stdout(
      `${JSON.stringify({ ...summarise(run), standing: standing.label, interrupted: standing.interrupted, next: standing.next ?? null, runs: runs.map((r) => ({ id: r.id, status: r.status, idea: r.idea })), nodes: Object.values(run.nodes).map((n) => ({ id: n.id, parentId: n.parentId, title: n.title, status: n.status, kind: n.kind, commit: n.commit ?? null, outcome: n.leaf?.outcome ?? null, k: votesK(run, n), checks: nodeCheckCounts(run, n) })), ...(trace === undefined ? {} : { trace }) })}\n`,
    );
    return 0;
  }
  const s = summarise(run);
  const lines = [
    `Run ${run.id} — ${standing.label} — "${run.idea}"${s.simulated ? ` — SIMULATED (worker ${run.config.worker}: placeholder plans and files, not real work)` : ''}`,
    `k = ${run.config.k} (${run.config.confidence}), worker ${run.config.worker}, ${hitlWords(run.config.hitl)}; ${s.nodes} nodes, ${s.leaves} leaves, ${s.done} done; ${s.samples} samples (${s.flagged} red-flagged), ${s.workerRuns} worker runs${s.sessions > 0 ? ` (${s.sessions} sessions)` : ''}, ${s.modelCalls} model calls, ${s.tokens} tokens, ${usageWords(s)}`,
    ...roleLines(s),
    ...githubLines(run),
    `Checks: ${checksSentence(run)}`,
    ...(run.reopens ?? []).map((r) => `${reopenLine(r, run)}.`),
    ...(run.status === 'running' && !standing.interrupted ? describeWaits(run) : []),
    '',
    renderTree(run),
  ];
  const pending = run.questions.filter((x) => x.answer === undefined);
  if (pending.length > 0)
    lines.push('', 'Pending questions:', ...pending.flatMap((q) => questionLines(q)));
  if (run.result !== undefined)
    lines.push(
      '',
      `Result: ${run.result.landed ? `landed as ${run.result.finalCommit}` : `not landed (branch ${run.result.rootBranch})`}, tree ${run.result.treeHash}`,
    );
  if (run.error !== undefined) lines.push('', `Error: ${run.error}`);
  if (standing.next !== undefined) lines.push('', standing.next);
  if (trace !== undefined) lines.push('', 'Journal:', ...traceLines(trace));
  io.stdout(`${lines.join('\n')}\n`);
  return 0;
}

/**
 * What the run's model use amounts to: a Google sign-in's requests against its daily allowance (it
 * is not billed per token), else the estimated spend.
 */
function usageWords(s: Pick<RunSummary, 'dailyRequests' | 'estimatedCostUsd'>): string {
  if (s.dailyRequests !== null)
    return `${s.dailyRequests.requests} requests of the about ${s.dailyRequests.limit.toLocaleString('en-US')} a day the Google sign-in allows (not billed per token)`;
  return `est. ${s.estimatedCostUsd === null ? 'unknown cost' : `$${s.estimatedCostUsd}`}`;
}

/**
 * The k each of a node's candidate votes counted with (`split`, `leaf`): the run's k, or what a
 * narrow win raised it to (`core/voting/adaptive-k.ts`); only the votes it held.
 */
function votesK(run: Run, n: Run['nodes'][string]): { split?: number; leaf?: number } {
  return {
    ...(n.split === undefined ? {} : { split: n.split.k ?? run.config.k }),
    ...(n.leaf === undefined ? {} : { leaf: n.leaf.k ?? run.config.k }),
  };
}
