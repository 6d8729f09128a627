import { checksSaid } from '../acceptance-test.js';
import { checkBadge, nodeCheckCounts, runCheckCounts, type CheckCounts } from '../checks.js';
import { DAILY_REQUESTS } from '../quota.js';
import { estimateCostUsd } from '../tree/pricing.js';
import { voteRecords } from '../tree/nodes.js';
import type { RoleCost, Run, VoteRecord, Wait } from '../tree/schema.js';
import { isSimulatedRun } from '../tree/simulated.js';
import { chooser, countsText, raisedKText, voteCounts } from './display.js';
import { raisedBecause } from '../voting/adaptive-k.js';
import { voteClasses } from '../voting/classes.js';
import { KeyNames } from './key-names.js';

export interface RunSummary {
  readonly runId: string;
  readonly status: Run['status'];
  readonly idea: string;
  /** The run's plans and candidates are simulated: placeholder work, not real work. */
  readonly simulated: boolean;
  readonly worker: string;
  readonly nodes: number;
  readonly leaves: number;
  readonly done: number;
  /** Paid draws (candidates, judge ballots, yes/no votes), flagged ones included. */
  readonly samples: number;
  readonly flagged: number;
  readonly workerRuns: number;
  /**
   * Paid external sessions (Jules), each counted once however often it was re-attached, including
   * those of draws a resample or a split discarded: what was bought.
   */
  readonly sessions: number;
  /** Every request sent to a language model: MAKER's roles' and the LLM worker's own. */
  readonly modelCalls: number;
  readonly tokens: number;
  /** The same requests and billed tokens by role (`minimal`, `split`, `review`, `ballot`, `worker`). */
  readonly byRole: Readonly<Record<string, RoleCost>>;
  /**
   * Estimated spend from tokens and the model's list price; null for unknown models and for a
   * Google sign-in through Gemini CLI, which is not billed per token (see {@link dailyRequests}).
   */
  readonly estimatedCostUsd: number | null;
  /**
   * A Google sign-in's measure instead of money: the model requests made, against about how many
   * its access allows a day. Null for billed accesses.
   */
  readonly dailyRequests: { readonly requests: number; readonly limit: number } | null;
  readonly questions: number;
  readonly pending: readonly {
    readonly id: string;
    readonly kind: string;
    readonly prompt: string;
    readonly options: readonly string[];
  }[];
  readonly rootBranch: string | null;
  readonly finalCommit: string | null;
  readonly treeHash: string | null;
  readonly landed: boolean;
  readonly error: string | null;
  /** The run's GitHub repository (its web page), when it has one. */
  readonly repository: string | null;
  /** Its pull request, once opened. */
  readonly pullRequest: {
    readonly number: number;
    readonly url: string;
    readonly state: 'open' | 'closed' | 'merged';
  } | null;
  /**
   * What ran on the result: every check in the tree and the overall one, on the root's result
   * (`verified`: all of them ran in a sandbox and passed).
   */
  readonly checks: CheckCounts;
  /** The same, per node, on each node's latest result. */
  readonly nodeChecks: Readonly<Record<string, CheckCounts>>;
  /** Waits on external services under way, for people to see. */
  readonly waits: readonly {
    readonly service: string;
    readonly reason: string;
    readonly until: string;
  }[];
}

export { voteRecords };

/** A vote's finished samples (draws and ballots, flagged ones included), earlier attempts' too. */
export function sampleCounts(r: VoteRecord): { samples: number; flagged: number } {
  let samples = r.retired?.samples ?? 0;
  let flagged = r.retired?.flagged ?? 0;
  for (const d of [...r.draws, ...r.ballots]) {
    if (d.status === 'started') continue;
    samples += 1;
    if (d.status === 'flagged') flagged += 1;
  }
  return { samples, flagged };
}

/** Starts a vote over: a new attempt with no draws or outcome; the paid ones stay counted. */
export function restartVote(r: VoteRecord): void {
  Object.assign(r, {
    attempt: r.attempt + 1,
    draws: [],
    ballots: [],
    outcome: undefined,
    retired: sampleCounts(r),
  });
}

/** Counters and results of a run, derived from its state (nothing here is stored twice). */
export function summarise(run: Run): RunSummary {
  const nodes = Object.values(run.nodes);
  let samples = 0;
  let flagged = 0;
  for (const n of nodes)
    for (const r of voteRecords(n)) {
      const counts = sampleCounts(r);
      samples += counts.samples;
      flagged += counts.flagged;
    }
  return {
    runId: run.id,
    status: run.status,
    idea: run.idea,
    simulated: isSimulatedRun(run.config),
    worker: run.config.worker,
    nodes: nodes.length,
    leaves: nodes.filter((n) => n.kind === 'leaf').length,
    done: nodes.filter((n) => n.status === 'done').length,
    samples,
    flagged,
    workerRuns: nodes.reduce((a, n) => a + n.cost.workerRuns, 0),
    sessions: new Set(
      nodes.flatMap((n) => [
        ...(n.externalIds ?? []),
        ...voteRecords(n).flatMap((r) => r.draws.map((d) => d.externalId).filter(Boolean)),
      ]),
    ).size,
    modelCalls: nodes.reduce((a, n) => a + n.cost.modelCalls, 0),
    tokens: nodes.reduce((a, n) => a + n.cost.tokens, 0),
    byRole: costByRole(nodes),
    estimatedCostUsd:
      run.config.modelAccess === 'gemini-cli'
        ? null
        : estimateCostUsd(
            run.config.model,
            nodes.reduce((a, n) => a + n.cost.tokens, 0),
          ),
    dailyRequests:
      run.config.modelAccess === 'gemini-cli'
        ? {
            requests: nodes.reduce((a, n) => a + n.cost.modelCalls, 0),
            limit: DAILY_REQUESTS['gemini-cli'].limit ?? 1000,
          }
        : null,
    questions: run.questions.length,
    pending: run.questions
      .filter((q) => q.answer === undefined)
      .map((q) => ({
        id: q.id,
        kind: q.kind,
        prompt: q.prompt,
        options: q.options.map((o) => o.id),
      })),
    // Before the result: the root's branch once it exists (a deferred run's pull request is open from it).
    rootBranch: run.result?.rootBranch ?? run.nodes[run.rootId]?.branch ?? null,
    finalCommit: run.result?.finalCommit ?? null,
    treeHash: run.result?.treeHash ?? null,
    landed: run.result?.landed ?? false,
    error: run.error ?? null,
    repository: run.github?.url ?? null,
    pullRequest: run.github?.pullRequest ?? null,
    checks: runCheckCounts(run),
    nodeChecks: Object.fromEntries(nodes.map((n) => [n.id, nodeCheckCounts(run, n)])),
    waits: distinctWaits(run).map(({ service, reason, until }) => ({ service, reason, until })),
  };
}

/** Model requests and tokens by role over `nodes`, roles in a fixed order. */
function costByRole(nodes: readonly Run['nodes'][string][]): Record<string, RoleCost> {
  const total: Record<string, RoleCost> = {};
  for (const n of nodes)
    for (const [role, cost] of Object.entries(n.cost.roles ?? {})) {
      const sum = (total[role] ??= { calls: 0, tokens: 0 });
      sum.calls += cost.calls;
      sum.tokens += cost.tokens;
    }
  const order = ['minimal', 'split', 'worker', 'review', 'ballot'];
  return Object.fromEntries(
    Object.entries(total).sort(
      ([a], [b]) => (order.indexOf(a) >>> 0) - (order.indexOf(b) >>> 0) || a.localeCompare(b),
    ),
  );
}

/** The run's waits, one per service and reason (several slots wait out one outage), the latest end kept. */
function distinctWaits(run: Run): Wait[] {
  const byReason = new Map<string, Wait>();
  for (const wait of run.waits ?? []) {
    const key = `${wait.service}\n${wait.reason}`;
    const seen = byReason.get(key);
    if (seen === undefined || seen.until < wait.until) byReason.set(key, wait);
  }
  return [...byReason.values()];
}

const STALE_WAIT_MS = 60_000;

/** Where the run lives on GitHub, as one line for people; none for a local run. */
export function githubLines(run: Run): string[] {
  const gh = run.github;
  if (gh === undefined) return [];
  const pr = gh.pullRequest;
  return [
    `GitHub: ${gh.url}${pr === undefined ? ' (no pull request yet)' : `; pull request #${pr.number} (${pr.state}): ${pr.url}`}`,
  ];
}

/**
 * The run's waits on external services as lines for people: "Waiting for jules until 10:12:03 UTC
 * (in 45 s): <reason>". Empty when nothing is waited for.
 */
export function describeWaits(run: Run, now: Date = new Date()): string[] {
  // A wait long past its end was left by a process that died (the next run clears it): not shown.
  const stale = now.getTime() - STALE_WAIT_MS;
  return distinctWaits(run)
    .filter((wait) => Date.parse(wait.until) >= stale)
    .map((wait) => {
      const until = new Date(wait.until);
      const left = Math.max(0, Math.round((until.getTime() - now.getTime()) / 1000));
      return `Waiting for ${wait.service} until ${until.toISOString().slice(11, 19)} UTC (in ${left} s): ${wait.reason}`;
    });
}

/** The decomposition tree as text: one line per node with status, kind, votes and flags. */
export function renderTree(run: Run): string {
  const lines: string[] = [];
  const walk = (id: string, prefix: string, last: boolean, top: boolean) => {
    const n = run.nodes[id];
    if (n === undefined) return;
    const counted = voteRecords(n).map(sampleCounts);
    const samples = counted.reduce((a, c) => a + c.samples, 0);
    const flags = counted.reduce((a, c) => a + c.flagged, 0);
    const leaf = n.leaf?.outcome;
    const votes =
      n.leaf === undefined || leaf === undefined
        ? ''
        : ` · ${countsText(voteCounts(n.leaf))}${leaf.status === 'human' ? ` (${chooser(leaf)})` : ''}`;
    const badge = checkBadge(run, n);
    const test = n.acceptanceTest?.status;
    const raised = [n.split, n.leaf]
      .map((r) => raisedKText(r, run.config.k))
      .filter((t) => t !== null)
      .map((t) => ` · ${t}`)
      .join('');
    const label = `${n.id} [${n.status}${n.kind === 'undecided' ? '' : `, ${n.kind}`}] ${n.title}${votes}${raised} · ${samples} samples${flags > 0 ? `, ${flags} flagged` : ''}${badge === undefined ? '' : ` · ${badge}`}${test === undefined || test === 'none' ? '' : ` · acceptance test ${test}`}`;
    lines.push(top ? label : `${prefix}${last ? '└─ ' : '├─ '}${label}`);
    const childPrefix = top ? '' : `${prefix}${last ? '   ' : '│  '}`;
    n.children.forEach((c, i) => walk(c, childPrefix, i === n.children.length - 1, false));
  };
  walk(run.rootId, '', true, true);
  return lines.join('\n');
}

/**
 * One node in detail: its task, and every draw of its votes (slot, verdict, red flags, external
 * session), with `sessionUrl` turning a session id into a link.
 */
export function renderNode(
  run: Run,
  nodeId: string,
  sessionUrl: (id: string) => string | undefined = () => undefined,
): string | undefined {
  const n = run.nodes[nodeId];
  if (n === undefined) return undefined;
  const lines = [
    `${n.id} [${n.status}${n.kind === 'undecided' ? '' : `, ${n.kind}`}] ${n.title}`,
    `  ${n.description}`,
    ...(n.files.length > 0 ? [`  files: ${n.files.join(', ')}`] : []),
    ...checksSaid(n).map((line) => `  ${line}`),
    ...(n.branch === undefined
      ? []
      : [`  branch: ${n.branch}${n.commit ? ` at ${n.commit}` : ''}`]),
  ];
  const records: [string, VoteRecord | undefined][] = [
    ['minimal?', n.minimal],
    ['split', n.split],
    ['acceptance test', n.acceptanceTest?.vote],
    ['probe', n.probe?.vote],
    ['candidates', n.leaf],
    ...Object.entries(n.integrations).map(([i, r]): [string, VoteRecord] => [
      `integration ${i}`,
      r,
    ]),
  ];
  const names = new KeyNames();
  for (const [name, record] of records) {
    if (record === undefined) continue;
    const outcome = record.outcome;
    const winner = outcome?.key === undefined ? undefined : names.name(outcome.key);
    lines.push(
      `  ${name}${record.attempt > 0 ? ` (attempt ${record.attempt + 1}${record.retired === undefined ? '' : `; ${record.retired.samples} samples drawn before`})` : ''}: ${outcome === undefined ? 'in progress' : `${outcome.status === 'human' ? chooser(outcome) : outcome.status}, ${countsText(voteCounts(record))}${winner === undefined ? '' : ` for ${winner.name}`}`}`,
    );
    if (record.k !== undefined)
      lines.push(
        `    k raised ${run.config.k} → ${record.k}${raisedBecause(record.kRaised)}: ${(record.kRaised ?? []).join('; then ')}${outcome?.stoodAtK === undefined ? '' : `; it did not settle at k = ${record.k}, so the decision at k = ${outcome.stoodAtK} stands`}`,
      );
    if (record.landed !== undefined)
      lines.push(
        `    its winning behaviour had ${record.landed.texts} texts: sample #${record.landed.slot} landed, ${landedBy(record.landed.by)}`,
      );
    if (winner?.description !== undefined) lines.push(`    ${winner.name}: ${winner.description}`);
    const draws = record.draws.map((d) => ['', d] as const);
    const ballots = record.ballots.map((d) => ['judge ', d] as const);
    // A candidate is named by its answer (its class's key): members of one answer share a name.
    const classKey = new Map(
      voteClasses(record.draws).flatMap((c) => c.members.map((m) => [m.slot, c.key] as const)),
    );
    for (const [who, d] of [...draws, ...ballots]) {
      const url = d.externalId === undefined ? undefined : sessionUrl(d.externalId);
      const session =
        d.externalId === undefined ? '' : ` · session ${d.externalId}${url ? ` ${url}` : ''}`;
      const own = who === '' ? (classKey.get(d.slot) ?? d.key) : d.key;
      const key = own === undefined ? undefined : names.name(own);
      if (key?.description !== undefined) lines.push(`    ${key.name}: ${key.description}`);
      const verdict =
        d.status === 'flagged'
          ? `flagged: ${d.flags.map((f) => `${f.rule}: ${f.message}`).join('; ')}`
          : d.status === 'valid'
            ? `valid${key === undefined ? '' : ` ${key.name}`}${own !== undefined && own === outcome?.key ? ' (winner)' : ''}`
            : 'started';
      lines.push(`    ${who}#${d.slot} ${verdict}${session}`);
    }
  }
  return lines.join('\n');
}

/** How the landed text of a winning behaviour was chosen, in words. */
function landedBy(by: 'agreement' | 'ballots' | 'favourite'): string {
  return by === 'agreement'
    ? 'ahead of the other texts by k'
    : by === 'ballots'
      ? "chosen by the judges' ballots"
      : "the judges' favourite (they did not settle)";
}
