import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { checksSentence } from '../../core/checks.js';
import type { Run } from '../../core/tree/schema.js';
import type { Driver } from '../../core/view/standing.js';
import { describeWaits, githubLines, renderTree, summarise } from '../../core/view/summary.js';

/**
 * The text the model sees (it never sees structuredContent): status, ids, options and the next step.
 * `cursor` is the one to wait with next (default: the run's last event).
 */
export function runResult(
  run: Run,
  where: { readonly active: boolean; readonly driver?: Driver | undefined },
  withTree = false,
  cursor = run.eventSeq,
): CallToolResult {
  const { active, driver } = where;
  const s = summarise(run);
  const id = `runId="${run.id}"`;
  const elsewhere =
    active || run.status !== 'running'
      ? ''
      : driver !== undefined
        ? ` (driven by ${driver.who} outside this server${driver.sure ? '' : ', on another host'}: maker_status follows it; maker_cancel stops it${driver.sure ? '' : ' only where it runs'})`
        : ` (not running in this server: call maker_resume with ${id})`;
  const lines = [
    `${s.simulated ? 'SIMULATED run' : 'Run'} ${run.id} ("${run.idea}"): ${run.status}${elsewhere}. ${s.done}/${s.nodes} nodes done, ${s.samples} samples (${s.flagged} red-flagged)${s.sessions > 0 ? `, ${s.sessions} ${run.config.worker} sessions` : ''}, ${s.questions} question(s).`,
  ];
  lines.push(...githubLines(run));
  if (run.status !== 'running' || run.result !== undefined)
    lines.push(`Checks: ${checksSentence(run)}`);
  if (run.status === 'running') lines.push(...describeWaits(run));
  if (withTree) lines.push('', renderTree(run), '');
  const pending = run.questions.filter((q) => q.answer === undefined);
  if (pending.length > 0) {
    lines.push('Pending questions — ask the person, then call maker_answer with their choice:');
    for (const q of pending) {
      lines.push(`- questionId="${q.id}" (${q.kind}): ${q.prompt}`);
      if (q.kind === 'veto' && q.context !== undefined && q.context !== '')
        lines.push(
          ...q.context
            .split('\n')
            .slice(0, 22)
            .map((l) => `    ${l}`),
        );
      for (const [i, o] of q.options.entries())
        lines.push(
          `  ${i + 1}. option "${o.id}": ${o.label}${o.detail ? ` — ${o.detail.split('\n').slice(0, 6).join(' ⏎ ')}` : ''}`,
        );
      if (q.allowText) lines.push('  (or the person’s own words)');
    }
    if (run.status === 'running')
      lines.push(`After maker_answer, call maker_wait with ${id} and cursor=${cursor}.`);
  }
  if (run.result !== undefined)
    lines.push(
      run.result.landed
        ? `Result landed on ${run.config.defaultBranch} as ${run.result.finalCommit}.`
        : `Result left on branch ${run.result.rootBranch}; ${run.config.defaultBranch} is untouched.`,
    );
  if (run.error !== undefined) lines.push(`Error: ${run.error}`);
  if (run.status === 'running' && active && pending.length === 0)
    lines.push(`Next: call maker_wait with ${id} and cursor=${cursor}.`);
  if (run.status === 'cancelled')
    lines.push(
      `The run was stopped (by maker_cancel, or because the maker server shut down, e.g. when Gemini CLI quit); everything done so far is saved. To continue it, call maker_resume with ${id}, then maker_wait.`,
    );
  if (run.status === 'failed')
    lines.push(`Once the cause is fixed, maker_resume with ${id} continues the run.`);
  if (run.status === 'failed-checks')
    lines.push(
      `Nothing landed: the result's checks failed or could not run. Show the person the checks above; to land it anyway, maker_answer q-root-veto accept for ${id}, then maker_resume.`,
    );
  return {
    content: [{ type: 'text', text: lines.join('\n') }],
    structuredContent: { ...s, cursor, active },
  };
}

/** Where a run stands, for progress notifications: nodes done, samples drawn, red flags. */
export function tally(run: Run | undefined): string | undefined {
  if (run === undefined) return undefined;
  const s = summarise(run);
  return `${s.done}/${s.nodes} nodes done, ${s.samples} samples, ${s.flagged} red flag${s.flagged === 1 ? '' : 's'}`;
}
