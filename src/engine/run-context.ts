import type { HeldSlot } from './semaphore.js';
import { escapeControls } from '../core/text.js';
import { makeRedactor, MakerError, type Redactor } from '../core/errors.js';
import type { ModelResponse } from '../core/red-flags/index.js';
import type { Question, Run, StateFile, TreeNode } from '../core/tree/schema.js';
import { describeCheckEnvironment, type CheckEnvironment } from '../core/checks.js';
import { billedTokens, type GenerateResult } from '../ports/language-model.js';
import type { NodeContext, Planner, RepoContext } from '../ports/planner.js';
import type { RunRemote } from '../ports/remote.js';
import type { WaitReporter } from '../ports/waits.js';
import type { Reservation, SessionBudget, Worker } from '../ports/worker.js';
import type { Workspace } from '../ports/workspace.js';
import type { EngineEventInput } from './events.js';
import {
  repoContextBuilder,
  type DependencyChange,
  type RepoContextRequest,
} from './repo-context.js';

/** Waits at least this long are shown (progress, `maker status`, `maker_wait`); shorter ones are not. */
export const VISIBLE_WAIT_MS = 5000;

/** A subtree stopped because a question waits for a person and the run defers (`--hitl defer`). */
export class QuestionPendingError extends MakerError {
  override readonly name = 'QuestionPendingError';
  readonly questionId: string;
  constructor(questionId: string) {
    super('question-pending', `Waiting for an answer to question ${questionId}.`);
    this.questionId = questionId;
  }
}

/** The run cannot continue (a person chose to stop it, or `--hitl fail` met a question). */
export class RunStoppedError extends MakerError {
  override readonly name: string = 'RunStoppedError';
  constructor(message: string) {
    super('run-stopped', message);
  }
}

/**
 * The result's checks failed or could not run, and no person could be asked whether to land it
 * anyway (`--hitl auto` or `fail`): the run stops with status `failed-checks`, nothing landed.
 */
export class ChecksFailedError extends RunStoppedError {
  override readonly name = 'ChecksFailedError';
}

/** The answer a question got: a chosen option and/or free text. */
export interface Answer {
  readonly optionId?: string | undefined;
  readonly text?: string | undefined;
  /** Given by the run's `--hitl auto` policy, not by a person. */
  readonly auto?: true | undefined;
}

/** What the step modules need from the engine for one run: its state, its ports, and its services. */
export interface RunContext {
  readonly state: StateFile;
  readonly run: Run;
  readonly workspace: Workspace;
  /** Where checks run, when they run (the planner is told); absent when none can run. */
  readonly checkEnvironment?: CheckEnvironment;
  readonly planner: Planner;
  readonly worker: Worker;
  readonly signal: AbortSignal;
  /**
   * Aborted when the run is cancelled or another subtree failed: no new draw starts (paid work
   * under way holds `signal`, and finishes).
   */
  readonly halt?: AbortSignal;
  readonly now: () => Date;
  /** The run's repository on GitHub, when it has one. */
  readonly remote?: RunRemote | undefined;
  /**
   * Publishes a node branch at `sha` to the run's remote (nothing without one), in the background:
   * branches moved at one moment go out in one push. Failures show when the run publishes every
   * branch before its pull request ({@link publishAll}).
   */
  publish?(branch: string, sha: string): void;
  /** A named point between the steps of a multi-step operation (crash tests kill the process there). */
  checkpoint?(step: string): Promise<void>;
  /** The configured keys and tokens: a candidate that writes one is red-flagged. Never saved. */
  readonly secrets: readonly string[];
  /**
   * Redacts what a check or an install printed (`OutputRedactor`: the configured keys, the
   * person's secrets from the environment, credential formats) before any of it is kept.
   * Absent: credential formats only.
   */
  readonly redactOutput?: (text: string) => Promise<string>;
  /**
   * Persists the state; resolves once what was mutated before the call is on disk. Name the nodes
   * changed since their last save (`ctx.save(n)`): a save then looks only at them, the run's own
   * fields and new nodes. No argument: anything may have changed.
   */
  save(...nodes: TreeNode[]): Promise<void>;
  /** Marks nodes changed for the next save, which it does not start at once (see {@link saveSoon}). */
  saveSoon?(...nodes: TreeNode[]): void;
  emit(event: EngineEventInput): void;
  /**
   * Runs paid work (a model call, a worker run, a check) in one of the run's `concurrency` slots.
   * `ahead`: served before work that has not started yet (it finishes a candidate already paid for).
   */
  paid<T>(work: () => Promise<T>, options?: { readonly ahead?: boolean }): Promise<T>;
  /**
   * Waits in line for a paid slot as {@link paid} does, and returns it: the caller builds its work
   * only once it can run. Absent: callers use {@link paid}.
   */
  claim?(options?: { readonly ahead?: boolean }): Promise<HeldSlot>;
  /**
   * Takes the node a place among the nodes that work at once (`NodeWindow`); resolves with
   * the function that gives it up. Absent: every node works at once.
   */
  enter?(n: TreeNode): Promise<() => void>;
  /**
   * Shows a wait on an external service: one long enough to notice ({@link VISIBLE_WAIT_MS}) is
   * recorded on the run in the state file and announced (`wait-start`), until the returned
   * function ends it (`wait-end`).
   */
  readonly wait: WaitReporter;
  /**
   * Asks a question once (by id) and resolves with its answer, following the run's HITL policy:
   * `auto` answers at once with `auto` (or, without one, stops the run: only a person can
   * decide), `fail` stops the run, `defer` rejects with {@link QuestionPendingError}, `wait`
   * waits for {@link MakerEngine.answer}.
   */
  ask(
    question: Omit<Question, 'createdAt' | 'answer' | 'allowText'> & { allowText?: boolean },
    auto: Answer | undefined,
  ): Promise<Answer>;
}

export function node(ctx: RunContext, id: string): TreeNode {
  const found = ctx.run.nodes[id];
  if (found === undefined)
    throw new MakerError('state-node-missing', `Run ${ctx.run.id} has no node ${id}.`);
  return found;
}

/**
 * The paths a leaf's candidates may touch: its own `files` and the `shared` files it may add to,
 * else its nearest ancestor's (a subtask inherits its parent's bounds). Empty only for a root
 * solved whole: the repository.
 */
export function scopeOf(ctx: Pick<RunContext, 'run'>, n: TreeNode): readonly string[] {
  for (
    let p: TreeNode | undefined = n;
    p !== undefined;
    p = p.parentId === null ? undefined : ctx.run.nodes[p.parentId]
  )
    if (p.files.length > 0) return [...new Set([...p.files, ...(p.shared ?? [])])];
  return [];
}

/** The node as the planner and workers see it: its task, its ancestry and every clarification above it. */
export function nodeContext(ctx: RunContext, n: TreeNode): NodeContext {
  const ancestors: string[] = [];
  const clarifications: { question: string; answer: string }[] = [];
  for (
    let p = n.parentId === null ? undefined : ctx.run.nodes[n.parentId];
    p !== undefined;
    p = p.parentId === null ? undefined : ctx.run.nodes[p.parentId]
  ) {
    ancestors.unshift(p.title);
    clarifications.unshift(...p.clarifications);
  }
  clarifications.push(...n.clarifications);
  return {
    runId: ctx.run.id,
    nodeId: n.id,
    idea: ctx.run.idea,
    depth: n.depth,
    maxDepth: ctx.run.config.maxDepth,
    task: {
      title: n.title,
      description: n.description,
      acceptance: n.acceptance,
      files: n.files,
      ...(n.shared === undefined ? {} : { shared: n.shared }),
      dependsOn: n.dependsOn,
      ...(n.check === undefined ? {} : { check: n.check }),
    },
    ancestors,
    scope: scopeOf(ctx, n),
    siblings: (n.parentId === null ? [] : (ctx.run.nodes[n.parentId]?.children ?? []))
      .map((id) => ctx.run.nodes[id])
      .filter((s): s is TreeNode => s !== undefined && s.id !== n.id)
      .map((s) => ({
        title: s.title,
        promises: (s.provides !== undefined && s.provides.length > 0
          ? `provides ${s.provides.join('; ')}`
          : s.acceptance.length > 0
            ? s.acceptance.join('; ')
            : s.description
        ).slice(0, 600),
      })),
    clarifications,
    ...(ctx.run.config.runChecks ? { checks: describeCheckEnvironment(ctx.checkEnvironment) } : {}),
    ...(n.baseCommit === undefined
      ? {}
      : {
          repository: repositoryView(ctx, n, {
            base: n.baseCommit,
            scope: scopeOf(ctx, n),
            dependencies: dependenciesOf(ctx, n),
            mentions: [n.title, n.description, ...n.acceptance].join('\n'),
          }),
        }),
  };
}

/**
 * A node's lazy view of the repository (see {@link NodeContext.repository}): built on the first
 * call for a budget, and reported then as a `context-built` event with its size.
 */
export function repositoryView(
  ctx: Pick<RunContext, 'workspace' | 'emit' | 'secrets'>,
  n: Pick<TreeNode, 'id'>,
  request: RepoContextRequest,
): (budget: number, options?: { readonly mapOnly?: boolean }) => Promise<RepoContext> {
  const builder = repoContextBuilder(ctx.workspace);
  // Made on first use: a node waiting for a paid slot holds no table of its own.
  let made: Map<string, Promise<RepoContext>> | undefined;
  return (budget, options) => {
    const mapOnly = options?.mapOnly === true;
    const key = `${budget}:${mapOnly}`;
    made ??= new Map();
    let view = made.get(key);
    if (view === undefined) {
      const asked = mapOnly ? { ...request, mapOnly } : request;
      view = builder.build(asked, budget, ctx.secrets).then((built) => {
        ctx.emit({
          type: 'context-built',
          nodeId: n.id,
          chars: built.chars,
          budget: built.budget,
          omitted: built.omitted.length,
        });
        return built;
      });
      made.set(key, view);
    }
    return view;
  };
}

/**
 * The work a node builds on: each sibling it depends on, and each sibling its ancestors depend
 * on (nearest first), as the commits before and after that sibling's subtree.
 */
export function dependenciesOf(ctx: Pick<RunContext, 'run'>, n: TreeNode): DependencyChange[] {
  const out: DependencyChange[] = [];
  for (
    let p: TreeNode | undefined = n;
    p !== undefined && p.parentId !== null;
    p = ctx.run.nodes[p.parentId]
  ) {
    const parent = ctx.run.nodes[p.parentId];
    for (const index of p.dependsOn) {
      const sibling = ctx.run.nodes[parent?.children[index] ?? ''];
      if (sibling?.baseCommit !== undefined && sibling.commit !== undefined)
        out.push({ title: sibling.title, from: sibling.baseCommit, to: sibling.commit });
    }
  }
  return out;
}

/**
 * Counts one session of `workerId` in the workspace's ledger (shared by every run in the state
 * file), unless `budget.limit` sessions already started within `budget.windowMs`. The ledger keeps
 * only the window, and is saved before the session is created: a crash can only over-count.
 */
export async function reserveSession(
  ctx: Pick<RunContext, 'state' | 'now' | 'save'>,
  workerId: string,
  budget: SessionBudget,
): Promise<Reservation> {
  const ledger = (ctx.state.ledger ??= { sessionStarts: {} });
  const now = ctx.now().getTime();
  const recent = (ledger.sessionStarts[workerId] ?? [])
    .filter((t) => now - Date.parse(t) < budget.windowMs)
    .sort();
  if (recent.length >= budget.limit) {
    const oldest = Date.parse(recent[recent.length - budget.limit] ?? new Date(now).toISOString());
    return { ok: false, used: recent.length, nextAt: new Date(oldest + budget.windowMs) };
  }
  recent.push(new Date(now).toISOString());
  ledger.sessionStarts[workerId] = recent;
  await ctx.save();
  return { ok: true };
}

/**
 * Records that `n` changed without waiting for it to be on disk, for a change the run makes again
 * identically after a crash, before any paid or external work that depends on it: the save the run
 * awaits next carries it, in the same log line (or one starts when the event loop turns). A
 * failure shows on the next save.
 */
export function saveSoon(ctx: RunContext, n: TreeNode): void {
  if (ctx.saveSoon !== undefined) ctx.saveSoon(n);
  else ctx.save(n).catch(() => undefined);
}

/** What a model request was for, in a node's cost by role. */
export type CostRole = 'minimal' | 'split' | 'review' | 'ballot' | 'worker' | 'test' | 'probe';

/** Counts a model call of `role` (each request it made) and its tokens against the node, and passes the response on. */
export async function counted(
  n: TreeNode,
  call: Promise<ModelResponse & Omit<GenerateResult, 'text'>>,
  role: CostRole,
): Promise<ModelResponse> {
  const response = await call;
  addCost(n, role, response.requests ?? 1, billedTokens(response));
  return response;
}

/** Adds `calls` model requests and `tokens` of `role` to the node's cost. */
export function addCost(n: TreeNode, role: CostRole, calls: number, tokens: number): void {
  n.cost.modelCalls += calls;
  n.cost.tokens += tokens;
  const roles = (n.cost.roles ??= {});
  const mine = (roles[role] ??= { calls: 0, tokens: 0 });
  mine.calls += calls;
  mine.tokens += tokens;
}

/** Flat, collision-free branch names: `maker/<run>/n-root`, `maker/<run>/n-0-1`. */
export function branchName(runId: string, nodeId: string): string {
  return `maker/${runId}/n-${nodeId}`;
}

/** Commit date for everything a run writes: fixed, so redoing a commit after a crash yields the same id. */
export function runDate(run: Run): Date {
  return new Date(run.createdAt);
}

const redactors = new WeakMap<readonly string[], Redactor>();

/**
 * `text` as it may leave the run through git or GitHub (a commit message, the pull request's
 * title and body): with the configured keys, and keys of known formats, redacted, as the state
 * file has them. A key pasted into the idea, or echoed by a model into a title or summary, stays home.
 * Control characters but line feed and tab are written as their escapes (`\u001b`).
 */
export function outward(ctx: Pick<RunContext, 'secrets'>, text: string): string {
  // Control characters (a model's ESC sequences) shown as escapes: `git log` and a terminal
  // showing the pull request replay them otherwise.
  return escapeControls(redacted(ctx, text));
}

/**
 * `text` with the configured keys, and keys of known formats, redacted: as the state file holds a
 * person's words (the idea), which keep their own characters there (every surface escapes them).
 */
export function redacted(ctx: Pick<RunContext, 'secrets'>, text: string): string {
  let redact = redactors.get(ctx.secrets);
  if (redact === undefined) {
    redact = makeRedactor(ctx.secrets);
    redactors.set(ctx.secrets, redact);
  }
  return redact(text);
}
