import type { ModelResponse } from '../core/red-flags/index.js';
import type { Sampling } from '../core/sampling.js';
import type { Subtask } from '../core/tree/schema.js';

/** What the planner and judges know about a node: its task and everything above it. */
export interface NodeContext {
  readonly runId: string;
  readonly nodeId: string;
  readonly idea: string;
  readonly depth: number;
  readonly maxDepth: number;
  readonly task: Subtask;
  /** Titles from the root down to the parent. */
  readonly ancestors: readonly string[];
  /**
   * The paths its candidates may write (its own files and shared ones, else its nearest
   * ancestor's); empty: the whole repository.
   */
  readonly scope?: readonly string[];
  /** The other subtasks of its parent, in order: what they do and promise. */
  readonly siblings?: readonly {
    readonly title: string;
    /** What it promises the others (its `provides`), else its acceptance checks or description. */
    readonly promises: string;
  }[];
  /** Clarifications a person gave for this node or its ancestors. */
  readonly clarifications: readonly { readonly question: string; readonly answer: string }[];
  /**
   * Where subtasks' checks run and what they must be (see `describeCheckEnvironment`), when the run
   * runs checks: every subtask of a split then needs one.
   */
  readonly checks?: string;
  /**
   * The repository as this node sees it (its files, the files its dependencies changed, a map of
   * every path), rendered within `budget` characters; built on first call per budget, and counted
   * and reported by the engine. Absent where there is no repository. Models that see code call it;
   * simulated roles do not, and pay nothing.
   */
  readonly repository?: (
    budget: number,
    options?: { readonly mapOnly?: boolean },
  ) => Promise<RepoContext>;
}

/** A node's view of the repository as text for a prompt, and what the budget left out. */
export interface RepoContext {
  readonly text: string;
  /** `text.length`, never above the budget it was built for. */
  readonly chars: number;
  readonly budget: number;
  /** Paths whose contents (or whose place in the map) were left out for the budget; the text lists them too. */
  readonly omitted: readonly string[];
}

/** One option a judge chooses among, shown with a label the judge answers with. */
export interface BallotOption {
  readonly label: string;
  readonly content: string;
}

export interface PlannerCall {
  readonly slot: number;
  readonly temperature: number;
  /** The rest of the role's settings (thinking, token caps), from the per-model table. */
  readonly sampling?: Sampling | undefined;
  readonly signal?: AbortSignal | undefined;
}

/**
 * The language-model roles of decomposition and judging (MAD's decomposition agents and
 * discriminators). Every method returns the raw response: the engine parses and red-flags it, so a
 * simulated planner and a real one pass through the same checks.
 *
 * Expected JSON: `isMinimal` → `{minimal: boolean, reason}`; `proposeSplit` → `{subtasks: Subtask[],
 * ambiguity?: {question, options[]}}`; `castBallot` → `{choice: label, reason}`; `reviewCandidate` →
 * `{verdict: "ok" | "suspect", confidence: 0..1, reason}`; `proposeTest` → `{test: {path, content,
 * command} | null, reason}`; `proposeProbe` → `{probe: {path, content, command} | null, reason}`.
 */
export interface Planner {
  readonly id: string;
  isMinimal(context: NodeContext, call: PlannerCall): Promise<ModelResponse>;
  proposeSplit(context: NodeContext, call: PlannerCall): Promise<ModelResponse>;
  castBallot(
    context: NodeContext,
    question: string,
    options: readonly BallotOption[],
    call: PlannerCall,
  ): Promise<ModelResponse>;
  /** Judges one candidate (a diff, or a rendered decomposition) for the LLM red flag. */
  reviewCandidate(
    context: NodeContext,
    candidate: string,
    call: PlannerCall,
  ): Promise<ModelResponse>;
  /**
   * Writes an acceptance test for a leaf from its task and acceptance criteria alone (it is never
   * shown a candidate): one test file and the command that runs it. Optional: a planner without it
   * gives no leaf an acceptance test, and the leaves' planned checks decide alone.
   */
  proposeTest?(context: NodeContext, call: PlannerCall): Promise<ModelResponse>;
  /**
   * Writes a probe for a leaf from its task and acceptance criteria alone (it is never shown a
   * candidate): a program that exercises the leaf's interface on representative and edge inputs
   * and prints what it observes, and the command that runs it. Optional: a planner without it
   * gives no leaf a probe, and candidates vote by their text alone.
   */
  proposeProbe?(context: NodeContext, call: PlannerCall): Promise<ModelResponse>;
}

/**
 * A {@link Planner} bound to one node (the engine's `plannerFor`): each call is sent the node's
 * context, the run's sampling for its role and the signal, its slot offset by the binding's base,
 * and its requests and tokens are counted against the node's cost. Same calls, one line each.
 */
export interface NodePlanner {
  isMinimal(slot: number): Promise<ModelResponse>;
  proposeSplit(slot: number): Promise<ModelResponse>;
  castBallot(
    question: string,
    options: readonly BallotOption[],
    slot: number,
  ): Promise<ModelResponse>;
  reviewCandidate(candidate: string, slot: number): Promise<ModelResponse>;
  /** Absent when the planner writes no acceptance tests. */
  readonly proposeTest?: ((slot: number) => Promise<ModelResponse>) | undefined;
  /** Absent when the planner writes no probes. */
  readonly proposeProbe?: ((slot: number) => Promise<ModelResponse>) | undefined;
}
