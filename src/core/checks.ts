import type { Run, TreeNode } from './tree/schema.js';

/** A check's outcome as the state keeps it: the command, whether it passed, its output's tail. */
export interface CheckResult {
  readonly command: string;
  readonly ok: boolean;
  readonly output: string;
}

/** Where checks run, as the planner is told it: the sandbox, what it holds, and its limits. */
export interface CheckEnvironment {
  /** The sandbox's name (`bubblewrap`). */
  readonly sandbox: string;
  /** The runtimes on the sandbox's PATH, each with its own test runner: `Node.js v20.1.0 (node --test)`. */
  readonly runtimes: readonly string[];
  /** What dependencies a check finds installed, in words. */
  readonly dependencies: string;
  readonly timeLimitSeconds: number;
}

/** How long one check may run. */
export const CHECK_TIMEOUT_MS = 120_000;

/** The truth about where checks run, for the planner's split prompt. */
export function describeCheckEnvironment(env: CheckEnvironment | undefined): string {
  const where =
    env === undefined
      ? "Checks run, where a sandbox works, in a fresh checkout of the subtask's result"
      : `Checks run in a ${env.sandbox} sandbox, in a fresh checkout of the subtask's result, from the repository root`;
  const runtimes =
    env === undefined || env.runtimes.length === 0
      ? 'the runtimes of the machine'
      : env.runtimes.join(', ');
  return [
    `${where}: no network; available: ${runtimes}; dependencies: ${env?.dependencies ?? 'none installed (only the standard library and what the repository holds)'}; at most ${Math.round(env?.timeLimitSeconds ?? CHECK_TIMEOUT_MS / 1000)} s per check.`,
    'Every subtask needs a "check": one shell command that exits 0 exactly when that subtask is done, run on its result alone (so it may use only the subtask\'s own files and those of the subtasks it depends on).',
    "Prefer the standard library and the runtime's own test runner (node --test, python3 -m unittest) unless the repository already uses something else. A test belongs to the same subtask as the code it tests, so that the subtask that writes a test can fix what the test finds.",
  ].join('\n');
}

/** What ran on a node's result, as every surface shows it. */
export interface CheckCounts {
  readonly ran: number;
  readonly passed: number;
  readonly failed: number;
  /** Checks that belong to the node's result and did not run on it. */
  readonly notRun: number;
  /** Every check of the result ran, in a sandbox, and passed (and there was at least one). */
  readonly verified: boolean;
}

/** Whether a run's checks run: `on`, turned `off` (`--no-checks`), or `no-sandbox` here. */
export function checkMode(run: Run): 'on' | 'off' | 'no-sandbox' {
  if (!run.config.runChecks) return 'off';
  return run.sandbox === null ? 'no-sandbox' : 'on';
}

/** The commands a node's result answers for: every check below it (in tree order), then its own. */
export function checksBelow(
  run: Run,
  n: TreeNode,
  options: { readonly children?: number; readonly own?: boolean } = {},
): string[] {
  const commands: string[] = [];
  const add = (c: string | undefined) => {
    if (c !== undefined && !commands.includes(c)) commands.push(c);
  };
  const walk = (id: string) => {
    const child = run.nodes[id];
    if (child === undefined) return;
    child.children.forEach(walk);
    if (run.config.runChecks) add(child.check);
  };
  n.children.slice(0, options.children ?? n.children.length).forEach(walk);
  if (options.own !== false && (run.config.runChecks || n.parentId === null)) add(n.check);
  return commands;
}

/**
 * The checks that ran on a node's latest result: a leaf's winning candidate's, then the node's
 * own record (a branch's after its latest merge; the root's before the veto), the later winning.
 */
export function nodeResults(n: TreeNode): readonly CheckResult[] {
  const byCommand = new Map<string, CheckResult>();
  const key = n.kind === 'leaf' ? n.leaf?.outcome?.key : undefined;
  if (key !== undefined) {
    const check = n.leaf?.draws.find((d) => d.key === key && d.check !== undefined)?.check;
    if (check !== undefined) byCommand.set(check.command, check);
  }
  for (const r of n.checks?.results ?? []) byCommand.set(r.command, r);
  return [...byCommand.values()];
}

/** A node's check counts, against the checks its result answers for. */
export function nodeCheckCounts(run: Run, n: TreeNode): CheckCounts {
  const expected = checksBelow(run, n);
  const results = nodeResults(n);
  let passed = 0;
  let failed = 0;
  for (const r of results)
    if (r.ok) passed += 1;
    else failed += 1;
  const notRun = expected.filter((c) => !results.some((r) => r.command === c)).length;
  const ran = passed + failed;
  return {
    ran,
    passed,
    failed,
    notRun,
    verified: checkMode(run) !== 'no-sandbox' && ran > 0 && failed === 0 && notRun === 0,
  };
}

/** The run's check counts: its root's (every check in the tree and the overall one, on the result). */
export function runCheckCounts(run: Run): CheckCounts {
  const root = run.nodes[run.rootId];
  if (root === undefined) return { ran: 0, passed: 0, failed: 0, notRun: 0, verified: false };
  return nodeCheckCounts(run, root);
}

/**
 * The node's badge: `checks ✓ 3/3`, `checks ✗ 1 of 3 failed`, `unverified` (done, but not every
 * check ran and passed), or nothing (no checks yet, or none in a run that turned them off).
 */
export function checkBadge(run: Run, n: TreeNode): string | undefined {
  const c = nodeCheckCounts(run, n);
  if (c.failed > 0) return `checks ✗ ${c.failed} of ${c.ran + c.notRun} failed`;
  if (c.verified) return `checks ✓ ${c.passed}/${c.passed}`;
  if (n.status !== 'done' || (checkMode(run) === 'off' && c.ran + c.notRun === 0)) return undefined;
  return 'unverified';
}

/**
 * Whether what ran on the run's result is known yet: with checks on, once the result's checks ran
 * (the root's, before the veto) or the root is done; with them off, or no sandbox, from the start.
 * Until then the checks are pending, not failed or missing.
 */
export function resultChecksKnown(run: Run): boolean {
  const root = run.nodes[run.rootId];
  return checkMode(run) !== 'on' || root?.checks !== undefined || root?.status === 'done';
}

/** One sentence on what the run's result was checked with, for the veto, the PR, the summary. */
export function checksSentence(run: Run): string {
  if (!resultChecksKnown(run))
    return ['running', 'awaiting-human'].includes(run.status)
      ? 'Pending: they run in a sandbox on each subtask and on the composed result, before it lands.'
      : 'Pending: the run stopped before its result was composed, so none could run on it yet.';
  const c = runCheckCounts(run);
  const mode = checkMode(run);
  const counts = `${c.ran} ran, ${c.passed} passed, ${c.failed} failed${c.notRun > 0 ? `, ${c.notRun} not run` : ''}`;
  if (mode === 'no-sandbox')
    return `UNVERIFIED: no sandbox works on this machine, so no model-proposed command ran (${counts}).`;
  if (c.verified)
    return `Verified: every check ran in a sandbox on the result and passed (${counts}).`;
  if (c.failed > 0) return `CHECKS FAILED on the result (${counts}).`;
  if (mode === 'off')
    return `UNVERIFIED: checks were turned off for this run${c.ran > 0 ? `; only the overall check ran (${counts})` : ''}.`;
  return `UNVERIFIED: ${c.ran === 0 ? 'no check ran on the result' : 'not every check ran on the result'} (${counts}).`;
}
