import {
  CHECK_TIMEOUT_MS,
  checkMode,
  checksBelow,
  checksSentence,
  runCheckCounts,
  type CheckResult,
} from '../../core/checks.js';
import { outputRedactor } from '../../core/credential-redaction.js';
import type { Run, TreeNode } from '../../core/tree/schema.js';
import type { RunContext } from '../run/run-context.js';

export type { CheckResult };

/** What is known of checks per run, by tree and command: a check is never run twice on one tree. */
interface Known {
  /** Every result kept. */
  readonly results: Map<string, CheckResult>;
  /**
   * Runs in flight, shared by whoever asks for the same one meanwhile (identical candidates are
   * checked at once), and the last {@link WHOLE_KEPT} finished, with their whole output.
   */
  readonly whole: Map<string, Promise<WholeRun>>;
}

interface WholeRun {
  readonly result: CheckResult;
  readonly output: string;
}

/** Whole outputs kept per run (each at most {@link REDACTED_CHARS}): about 2 MiB at most. */
const WHOLE_KEPT = 32;

const known = new WeakMap<object, Known>();

function cache(run: object): Known {
  let map = known.get(run);
  if (map === undefined) {
    map = { results: new Map(), whole: new Map() };
    known.set(run, map);
  }
  return map;
}

/** What of a check's output is kept: its tail, redacted first (a cut can split a key). */
const KEPT_CHARS = 600;
/** What of a check's output is redacted, at most: its tail, far longer than what is kept. */
const REDACTED_CHARS = 64 * 1024;

/** Redactors for contexts that bring none: over their configured keys, made once per key list. */
const fallbacks = new WeakMap<readonly string[], (text: string) => Promise<string>>();
const NO_KEYS: readonly string[] = [];

function redactorOf(ctx: {
  readonly redactOutput?: ((text: string) => Promise<string>) | undefined;
  readonly secrets?: readonly string[] | undefined;
}): (text: string) => Promise<string> {
  if (ctx.redactOutput !== undefined) return ctx.redactOutput;
  const keys = ctx.secrets ?? NO_KEYS;
  let redact = fallbacks.get(keys);
  if (redact === undefined) {
    redact = outputRedactor([], keys);
    fallbacks.set(keys, redact);
  }
  return redact;
}

/** What {@link runCheck} and {@link redactedRun} need of a run's context. */
export type CheckContext = Pick<RunContext, 'checks'> &
  Partial<Pick<RunContext, 'redactOutput' | 'secrets'>> & {
    readonly signal?: AbortSignal;
    readonly run?: { readonly config: { readonly install?: string | undefined } };
  };

/**
 * Runs `command` on `tree` in the workspace's sandboxed scratch checkout, with the tree's
 * dependencies installed as the run's `install` says; cancelled with the run (`AbortedError`: a
 * check cut short is no result). The same command on the same tree runs once. Its output is
 * redacted here, where it enters MAKER, before anything keeps, shows or sends any of it.
 */
export async function runCheck(
  ctx: CheckContext,
  tree: string,
  command: string,
): Promise<CheckResult> {
  const seen =
    ctx.run === undefined ? undefined : cache(ctx.run).results.get(`${tree}\n${command}`);
  return seen ?? (await runCheckWhole(ctx, tree, command)).result;
}

/**
 * {@link runCheck} with its whole redacted output beside the kept result: for what reads all of it
 * (how a candidate failed its acceptance test). Run once per tree and command while its output is
 * among the last kept (a run in flight is shared); the result is remembered as `runCheck`'s. A run
 * that fails to finish (cancelled) is not remembered.
 */
export function runCheckWhole(ctx: CheckContext, tree: string, command: string): Promise<WholeRun> {
  const fresh = async (): Promise<WholeRun> => {
    const run = await redactedRun(ctx, tree, command);
    return { result: { command, ok: run.ok, output: keptOutput(run.output) }, output: run.output };
  };
  if (ctx.run === undefined) return fresh();
  const { results, whole } = cache(ctx.run);
  const key = `${tree}\n${command}`;
  let run = whole.get(key);
  // Last used, last out.
  if (run !== undefined) whole.delete(key);
  else {
    run = fresh().then((r) => {
      results.set(key, r.result);
      return r;
    });
    const started = run;
    run.catch(() => {
      if (whole.get(key) === started) whole.delete(key);
    });
  }
  whole.set(key, run);
  for (const oldest of whole.keys()) {
    if (whole.size <= WHOLE_KEPT) break;
    whole.delete(oldest);
  }
  return run;
}

/**
 * Runs `command` on `tree` as {@link runCheck} does (sandboxed, with its deadline, cancelled with
 * the run), every time, and returns its whole output tail as the sandbox hands it back (at most
 * 64 KiB), redacted, within `timeoutMs`: for what reads all of it (a probe's behaviour key) before keeping a clip.
 */
export async function redactedRun(
  ctx: CheckContext,
  tree: string,
  command: string,
  timeoutMs = CHECK_TIMEOUT_MS,
): Promise<{ ok: boolean; output: string }> {
  const result = await ctx.checks.runCheck(tree, command, timeoutMs, ctx.signal, {
    install: ctx.run?.config.install,
  });
  return { ok: result.ok, output: await redactorOf(ctx)(result.output.slice(-REDACTED_CHARS)) };
}

/**
 * A check's output as a run keeps it: its tail, after the lines before it that name an error (a
 * test runner prints them far from its end; a reopening's trace and its reason line need them).
 */
export function keptOutput(output: string): string {
  const tail = output.slice(-KEPT_CHARS);
  const before = output.slice(0, -KEPT_CHARS).split('\n').filter(isErrorLine);
  const errors = [...new Set(before.map((l) => l.trim().slice(0, 200)))].slice(0, 2);
  return errors.length === 0 ? tail : `${errors.join('\n')}\n…\n${tail}`;
}

/** A line that names an error or exception (`SyntaxError: …`, `# AttributeError: …`). */
export function isErrorLine(line: string): boolean {
  return /^(\w+\.)*\w*(Error|Exception)\b[:\s]/.test(line.trim().replace(/^#\s*/, ''));
}

/** The lines of a node:test report's failing test that say why, up to its stack. */
const TAP_WHY = /^(not ok \d+|error:|name:|expected:|actual:)/;
const TAP_SKIP = /^(duration_ms|location|failureType|code|operator):/;

/**
 * Why a check failed, in about `max` characters, for a red flag's message: the output's end, after
 * what a test runner prints far from it when that is not in the end already: the first failing
 * test of a node:test report (`not ok`, its `error`, `expected` and `actual`, not its stack), else
 * the first line naming an error. A node:test report ends with its counts, which say nothing of why.
 */
export function failureExcerpt(output: string, max = 300): string {
  const tail = output.slice(-max);
  const why = whyLines(output.split('\n').map((l) => l.trim()));
  const head = why
    .join(' ')
    .replace(/\s+/g, ' ')
    .replace(/: \|- /g, ': ');
  if (head === '' || tail.includes(why[0] ?? '')) return tail;
  const said = head.length > max / 2 ? `${head.slice(0, Math.floor(max / 2) - 1)}…` : head;
  return `${said} … ${output.slice(-(max - said.length))}`;
}

/** The lines that say why, from a check's trimmed output lines (see {@link failureExcerpt}). */
function whyLines(lines: readonly string[]): string[] {
  const from = lines.findIndex((l) => /^not ok \d+/.test(l));
  if (from < 0) {
    const error = lines.find(isErrorLine);
    return error === undefined ? [] : [error];
  }
  const block = lines.slice(from);
  const end = block.findIndex((l, i) => i > 0 && /^(stack:|\.\.\.$|not ok \d+|ok \d+)/.test(l));
  const why = block
    .slice(0, end < 0 ? 12 : end)
    .filter((l) => l !== '' && l !== '---' && !TAP_SKIP.test(l));
  return why.some((l, i) => i > 0 && TAP_WHY.test(l)) ? why : why.slice(0, 1);
}

/** Whether this run's checks run now: on, and a sandbox works here. */
export function checksRun(run: Run): boolean {
  return checkMode(run) === 'on';
}

/**
 * Runs each of `commands` on `tree` (each in its own sandboxed checkout and paid slot, ahead of
 * work not yet started, as many at once as the run's concurrency allows) and records them on `n`
 * as the checks of its latest result. Results known for this tree are reused.
 */
export async function checkNode(
  ctx: RunContext,
  n: TreeNode,
  tree: string,
  commands: readonly string[],
): Promise<CheckResult[]> {
  const results = await Promise.all(
    commands.map((command) => ctx.paid(() => runCheck(ctx, tree, command), { ahead: true })),
  );
  n.checks = { tree, results };
  await ctx.save(n);
  if (commands.length > 0)
    ctx.emit({
      type: 'checks-end',
      nodeId: n.id,
      ran: results.length,
      failed: results.filter((r) => !r.ok).length,
    });
  return results;
}

/**
 * The root's checks on the composed result, before the final veto: every check in the tree
 * (when checks run) and the person's overall one (`--check`, whenever a sandbox works). Kept on
 * the root, so a resume does not run them again; the overall one also on `run.finalCheck`.
 */
export async function finalChecks(ctx: RunContext, root: TreeNode, commit: string): Promise<void> {
  if (ctx.run.sandbox === null || ctx.run.sandbox === undefined) return;
  const tree = await ctx.workspace.treeOf(commit);
  const commands = checksRun(ctx.run)
    ? checksBelow(ctx.run, root)
    : root.check === undefined
      ? []
      : [root.check];
  if (commands.length === 0) return;
  const kept = root.checks?.tree === tree ? root.checks.results : [];
  for (const r of kept) cache(ctx.run).results.set(`${tree}\n${r.command}`, r);
  await checkNode(ctx, root, tree, commands);
  const overall = root.checks?.results.find((r) => r.command === root.check);
  if (overall !== undefined) {
    ctx.run.finalCheck = { ...overall, commit };
    await ctx.save();
  }
}

/** Whether `--hitl auto` may accept the result: every check passed, or the person turned them off. */
export function acceptable(run: Run): boolean {
  const counts = runCheckCounts(run);
  if (counts.failed > 0) return false;
  if (checkMode(run) === 'off') return counts.notRun === 0;
  return counts.verified;
}

/** What ran before the veto, for the person deciding: the counts, and each failing check's tail. */
export function checkSummary(run: Run): string {
  const root = run.nodes[run.rootId];
  const failing = (root?.checks?.results ?? []).filter((r) => !r.ok);
  let flagged = 0;
  for (const n of Object.values(run.nodes))
    for (const d of n.leaf?.draws ?? [])
      if (d.flags.some((f) => f.rule === 'check-failed')) flagged += 1;
  return [
    checksSentence(run),
    ...(flagged > 0
      ? [`${flagged} candidate${flagged === 1 ? ' was' : 's were'} discarded for a failing check.`]
      : []),
    ...failing.map(
      (r) =>
        `\`${r.command}\` FAILED${r.output.trim() === '' ? ' (no output).' : `:\n${r.output.slice(-400)}`}`,
    ),
  ].join(' ');
}
