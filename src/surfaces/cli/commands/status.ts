import { join, resolve } from 'node:path';
import { UsageError } from '../../../core/errors.js';
import type { Run } from '../../../core/tree/schema.js';
import { Journal } from '../../../adapters/state/journal.js';
import {
  JOURNAL_FILE_NAME,
  STATE_FILE_NAME,
  makerStateFile,
} from '../../../adapters/state/state-file.js';
import { WorkspaceLock } from '../../../adapters/state/lock.js';
import { renderNode, renderTree, summarise } from '../../../engine/summary.js';
import { answerQuestion } from '../../../engine/questions.js';
import { secretsOf } from '../../wiring.js';
import { makeRedactor } from '../../../core/errors.js';
import { parseCommandArgs, rejectPositionals } from '../args.js';
import type { CliIo } from '../io.js';

export const STATUS_HELP = `maker status — where a run stands

Usage:
  maker status [--dir <repo>] [--run ID] [--node ID] [--json] [--trace]
  maker answer [--dir <repo>] [--run ID] <questionId> <option id, number or text>

status prints the decomposition tree (status, kind, votes, samples and red
flags per node), the counters, and any pending questions; --trace adds the
event journal; --node ID shows one node in detail: its task and every candidate,
ballot and vote with its red flags and (with Jules) its session and link;
--json prints the summary and the run's nodes as JSON.

answer records a person's answer to a pending question (as printed by status
or run); continue the run with \`maker resume\`.
`;

const OPTIONS = {
  dir: { type: 'string' },
  run: { type: 'string' },
  json: { type: 'boolean' },
  trace: { type: 'boolean' },
  node: { type: 'string' },
  help: { type: 'boolean', short: 'h' },
} as const;

export async function statusCommand(args: readonly string[], io: CliIo): Promise<number> {
  const { values, positionals } = parseCommandArgs('status', args, OPTIONS);
  if (values.help === true) {
    io.stdout(STATUS_HELP);
    return 0;
  }
  rejectPositionals('status', positionals);
  const dir = resolve(values.dir ?? io.cwd);
  const state = await makerStateFile(dir).load();
  const runs = Object.values(state.runs).sort((a, b) => a.createdAt.localeCompare(b.createdAt));
  if (runs.length === 0)
    throw new UsageError(
      `No MAKER runs in ${dir}. Start one with: maker run "<idea>" --dir ${dir}`,
    );
  const run = values.run === undefined ? (runs.at(-1) as Run) : state.runs[values.run];
  if (run === undefined)
    throw new UsageError(
      `No run "${values.run}" in ${dir}. Runs: ${runs.map((r) => r.id).join(', ')}.`,
    );
  if (values.node !== undefined) {
    const jules = run.config.worker === 'jules';
    const text = renderNode(run, values.node, (id) =>
      jules ? `https://jules.google.com/session/${id}` : undefined,
    );
    if (text === undefined)
      throw new UsageError(
        `Run ${run.id} has no node "${values.node}". Nodes: ${Object.keys(run.nodes).join(', ')}.`,
      );
    io.stdout(`${text}\n`);
    return 0;
  }
  const trace =
    values.trace === true
      ? (await new Journal(join(dir, JOURNAL_FILE_NAME)).read()).filter(
          (e) => e['runId'] === run.id,
        )
      : undefined;
  if (values.json === true) {
    io.stdout(
      `${JSON.stringify({ ...summarise(run), runs: runs.map((r) => ({ id: r.id, status: r.status, idea: r.idea })), nodes: Object.values(run.nodes).map((n) => ({ id: n.id, parentId: n.parentId, title: n.title, status: n.status, kind: n.kind, commit: n.commit ?? null, outcome: n.leaf?.outcome ?? null })), ...(trace === undefined ? {} : { trace }) })}\n`,
    );
    return 0;
  }
  const s = summarise(run);
  const lines = [
    `Run ${run.id} — ${run.status} — "${run.idea}"`,
    `k = ${run.config.k} (${run.config.confidence}), worker ${run.config.worker}, hitl ${run.config.hitl}; ${s.nodes} nodes, ${s.leaves} leaves, ${s.done} done; ${s.samples} samples (${s.flagged} red-flagged), ${s.workerRuns} worker runs${s.sessions > 0 ? ` (${s.sessions} sessions)` : ''}, ${s.modelCalls} model calls, ${s.tokens} tokens, est. ${s.estimatedCostUsd === null ? 'unknown cost' : `$${s.estimatedCostUsd}`}`,
    '',
    renderTree(run),
  ];
  if (s.pending.length > 0) {
    lines.push('', 'Pending questions:');
    for (const q of run.questions.filter((x) => x.answer === undefined))
      lines.push(
        `  ${q.id} (${q.kind}): ${q.prompt}`,
        ...q.options.map((o) => `    ${o.id}: ${o.label}`),
      );
    lines.push(`Answer with: maker answer --dir ${dir} <questionId> <option>`);
  }
  if (run.result !== undefined)
    lines.push(
      '',
      `Result: ${run.result.landed ? `landed as ${run.result.finalCommit}` : `not landed (branch ${run.result.rootBranch})`}, tree ${run.result.treeHash}`,
    );
  if (run.error !== undefined) lines.push('', `Error: ${run.error}`);
  if (trace !== undefined)
    lines.push(
      '',
      'Journal:',
      ...trace.map(
        (e) =>
          `  #${String(e['seq'])} ${String(e['at'])} ${String(e['type'])} ${JSON.stringify(Object.fromEntries(Object.entries(e).filter(([k]) => !['seq', 'at', 'type', 'runId'].includes(k))))}`,
      ),
    );
  io.stdout(`${lines.join('\n')}\n`);
  return 0;
}

export async function answerCommand(args: readonly string[], io: CliIo): Promise<number> {
  const { values, positionals } = parseCommandArgs('answer', args, {
    dir: { type: 'string' },
    run: { type: 'string' },
    json: { type: 'boolean' },
    help: { type: 'boolean', short: 'h' },
  });
  if (values.help === true) {
    io.stdout(STATUS_HELP);
    return 0;
  }
  const [questionId, ...rest] = positionals;
  const text = rest.join(' ').trim();
  if (questionId === undefined || text === '')
    throw new UsageError(
      'maker answer needs a question id and an answer: maker answer q-root-veto accept',
    );
  const dir = resolve(values.dir ?? io.cwd);
  await new WorkspaceLock(join(dir, `${STATE_FILE_NAME}.lock`), {
    command: 'answer',
  }).holdUntilExit();
  const store = makerStateFile(dir, makeRedactor(secretsOf(io.env)));
  const state = await store.load();
  const run =
    values.run !== undefined
      ? state.runs[values.run]
      : Object.values(state.runs).find((r) =>
          r.questions.some((q) => q.id === questionId && q.answer === undefined),
        );
  if (run === undefined)
    throw new UsageError(
      `No pending question "${questionId}" in ${dir}. See: maker status --dir ${dir}`,
    );
  // Answering edits only the state file: no repository, planner or worker is needed.
  const now = new Date();
  const answered = answerQuestion(run, questionId, text, now);
  run.eventSeq += 1;
  await store.save(state);
  const answer = answered.answer?.optionId ?? answered.answer?.text ?? '';
  await new Journal(join(dir, JOURNAL_FILE_NAME), secretsOf(io.env)).append({
    type: 'question-answered',
    questionId,
    answer,
    seq: run.eventSeq,
    runId: run.id,
    at: now.toISOString(),
  });
  if (values.json === true) io.stdout(`${JSON.stringify({ runId: run.id, question: answered })}\n`);
  else
    io.stdout(
      `Answered ${questionId}: ${answered.answer?.optionId ?? answered.answer?.text}. Continue with: maker resume --dir ${dir}\n`,
    );
  return 0;
}
