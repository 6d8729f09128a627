import type { CalibrationSample } from '../../core/calibration.js';
import { newNode } from '../../core/tree/nodes.js';
import {
  STATE_SCHEMA_VERSION,
  type Run,
  type RunConfig,
  type TreeNode,
} from '../../core/tree/schema.js';
import type { Planner } from '../../ports/planner.js';
import type { Worker } from '../../ports/worker.js';
import { EMPTY_TREE, type Workspace } from '../../ports/workspace.js';
import { codeCandidate } from '../leaf/candidate.js';
import { runCheck } from '../checks/checks.js';
import { nodeContext } from '../context/node-context.js';
import type { RunContext } from '../run/run-context.js';
import { reserveSession, type LedgerDeps } from '../run/session-ledger.js';
import { Semaphore } from '../../core/semaphore.js';
import { HIDDEN_TEST_COMMAND, HIDDEN_TEST_PATH, type CalibrationTask } from './suite.js';

/** One recorded sample: what voting needs, plus why it was flagged and what it cost. */
export interface RecordedSample extends CalibrationSample {
  readonly slot: number;
  /** The red-flag rules that discarded it (empty when valid). */
  readonly flags: readonly string[];
  readonly tokens: number;
  /** The candidate's tree (valid samples): its text, where its class is what it means. */
  readonly tree?: string;
}

export interface CalibrationDeps {
  /** A scratch repository: each task's start is committed there (no branch is moved). */
  readonly workspace: Workspace;
  readonly planner: Planner;
  readonly worker: Worker;
  readonly secrets: readonly string[];
  readonly signal: AbortSignal;
  /** The model sampled (its table's settings apply, as in a run); absent: simulated. */
  readonly model?: string | undefined;
}

/** Candidate policy as a default run has it. */
const CONFIG: RunConfig = {
  worker: 'gemini',
  planner: 'gemini',
  k: 1,
  confidence: 'low',
  maxDepth: 0,
  maxNodes: 1,
  maxCandidates: 1,
  maxBallots: 1,
  maxFlagRate: 1,
  maxChangedLines: 400,
  concurrency: 1,
  seed: 1,
  hitl: 'auto',
  runChecks: false,
  allow: { executables: [], symlinks: [], workflows: false },
  maxFileBytes: 1_000_000,
  defaultBranch: 'main',
};
const DATE = new Date('2025-01-01T00:00:00Z');

/**
 * Samples every task `samples` times through the run's own candidate path (the worker's prompt
 * and edit parsing, every red flag including the LLM review), then runs each valid candidate's
 * hidden test in the workspace's sandbox (once per distinct tree). `concurrency` bounds the
 * samples in flight; `onSample` reports progress.
 */
export async function sampleSuite(
  deps: CalibrationDeps,
  tasks: readonly CalibrationTask[],
  options: {
    samples: number;
    concurrency: number;
    onSample?: (done: number, total: number) => void;
  },
): Promise<RecordedSample[][]> {
  const limit = new Semaphore(options.concurrency);
  const total = tasks.length * options.samples;
  let done = 0;
  const tests = new Map<string, Promise<boolean>>();
  return Promise.all(
    tasks.map(async (task) => {
      const { ctx, node } = await taskContext(deps, task);
      const context = nodeContext(ctx, node);
      const hiddenTest = (tree: string): Promise<boolean> => {
        let result = tests.get(`${task.id}:${tree}`);
        if (result === undefined) {
          result = deps.workspace
            .treeWithEdits(tree, [{ path: HIDDEN_TEST_PATH, content: task.test }])
            .then((withTest) => runCheck(ctx, withTest, HIDDEN_TEST_COMMAND))
            .then((r) => r.ok);
          tests.set(`${task.id}:${tree}`, result);
        }
        return result;
      };
      return Promise.all(
        Array.from({ length: options.samples }, (_, slot) =>
          limit.run(async () => {
            // Each sample counts its own cost (samples of one task run at once).
            const own: TreeNode = { ...node, cost: { modelCalls: 0, workerRuns: 0, tokens: 0 } };
            const draw = await codeCandidate(
              ctx,
              own,
              { context, baseCommit: node.baseCommit ?? '', branch: '' },
              slot,
              task.files,
            );
            const tokens = own.cost.tokens;
            done += 1;
            options.onSample?.(done, total);
            if (!draw.ok)
              return {
                slot,
                valid: false,
                correct: false,
                key: '',
                flags: draw.flags.map((f) => f.rule),
                tokens,
              };
            // Keyed as a run's vote keys it: its class, not its tree.
            return {
              slot,
              valid: true,
              correct: await hiddenTest(draw.tree ?? draw.key),
              key: draw.key,
              ...(draw.tree === undefined ? {} : { tree: draw.tree }),
              ...(draw.alias === undefined ? {} : { alias: draw.alias }),
              ...(draw.check === undefined ? {} : { check: draw.check }),
              flags: [],
              tokens,
            };
          }, deps.signal),
        ),
      );
    }),
  );
}

/** A run of one node for `task`, at a commit of its start files, as codeCandidate sees a leaf. */
async function taskContext(
  deps: CalibrationDeps,
  task: CalibrationTask,
): Promise<{ ctx: RunContext; node: TreeNode }> {
  const ws = deps.workspace;
  const start = Object.entries(task.start).map(([path, content]) => ({ path, content }));
  const tree = await ws.treeWithEdits(EMPTY_TREE, start);
  const base = await ws.commit({
    tree,
    parents: [],
    message: `calibration: ${task.id}`,
    date: DATE,
  });
  const node: TreeNode = {
    ...newNode(task.id, null, 0, 0, {
      title: task.title,
      description: task.description,
      acceptance: task.acceptance,
      files: task.files,
      dependsOn: [],
    }),
    kind: 'leaf',
    baseCommit: base,
  };
  const run: Run = {
    id: `calibration-${task.id}`,
    idea: task.title,
    createdAt: DATE.toISOString(),
    status: 'running',
    config: deps.model === undefined ? CONFIG : { ...CONFIG, model: deps.model },
    baseCommit: base,
    rootId: task.id,
    nodes: { [task.id]: node },
    questions: [],
    eventSeq: 0,
  };
  // The sample's own ledger: calibration counts sessions apart from the workspace's runs.
  const ledger: LedgerDeps = {
    state: { $schemaVersion: STATE_SCHEMA_VERSION, runs: { [run.id]: run } },
    now: () => DATE,
    save: () => Promise.resolve(),
  };
  const ctx: RunContext = {
    run,
    workspace: ws,
    checks: ws,
    landing: ws,
    planner: deps.planner,
    worker: deps.worker,
    signal: deps.signal,
    now: () => DATE,
    secrets: deps.secrets,
    save: () => Promise.resolve(),
    emit: () => undefined,
    paid: (work) => work(),
    services: {
      reserveSession: (workerId, budget) => reserveSession(ledger, workerId, budget),
      wait: () => () => undefined,
    },
    ask: () => Promise.reject(new Error('A calibration sample asked a question.')),
  };
  return { ctx, node };
}
