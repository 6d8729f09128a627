import { hashString, uniform } from '../../core/random.js';
import type { ModelResponse } from '../../core/red-flags/index.js';
import type { Subtask } from '../../core/tree/schema.js';
import type { BallotOption, NodeContext, Planner, PlannerCall } from '../../ports/planner.js';
import type { Worker, WorkerOutput, WorkerTask } from '../../ports/worker.js';
import type { FileEdit } from '../../ports/workspace.js';

/** Rates of the simulated planner and worker. Every answer depends only on (seed, node, slot). */
export interface ProjectSimOptions {
  readonly seed: number;
  /** Depth at which nodes are minimal (default 2). */
  readonly depth?: number;
  /** Share of answers that are malformed or truncated (red-flagged). Default 0.05. */
  readonly flagRate?: number;
  /** Share of valid answers that are wrong (a misjudged "minimal?", a variant split, a wrong patch). Default 0.1. */
  readonly errorRate?: number;
  /** Share of worker runs that fail outright. Default 0.03. */
  readonly failRate?: number;
  /** Share of patches that are confused (the LLM review should catch them). Default 0.03. */
  readonly confusedRate?: number;
  /** Share of branch nodes whose leaves all touch a shared file, so their merges conflict. Default 0.3. */
  readonly conflictRate?: number;
  /** Probability a judge picks the right option. Default 0.9. */
  readonly judgeAccuracy?: number;
  /** The root split reports an ambiguity (a clarify question) until clarified. Default false. */
  readonly clarify?: boolean;
}

/** Rates of a simulated project without a single fault (every answer valid, right and on task). */
export const FLAWLESS = {
  flagRate: 0,
  failRate: 0,
  errorRate: 0,
  confusedRate: 0,
  conflictRate: 0,
} as const satisfies Partial<ProjectSimOptions>;

const WRONG = 'TODO: this does not do what the subtask asks';
const CONFUSED = 'I am not sure what this subtask wants';
const ROOT_PARTS = ['Project scaffold', 'Core logic', 'Command-line interface', 'Documentation'];

/** Directory a node's files live in: root → `src/`, `0-1` → `src/n0/n1/`. */
export function simNodeDir(nodeId: string): string {
  return nodeId === 'root'
    ? 'src/'
    : `src/${nodeId
        .split('-')
        .map((p) => `n${p}`)
        .join('/')}/`;
}

function childId(parent: string, index: number): string {
  return parent === 'root' ? String(index) : `${parent}-${index}`;
}

/** The simulated decomposer and judges of `maker demo`, `maker bench tree` and tests. */
export class SimPlanner implements Planner {
  readonly id = 'sim';
  readonly #o: Required<ProjectSimOptions>;

  constructor(options: ProjectSimOptions) {
    this.#o = withDefaults(options);
  }

  isMinimal(context: NodeContext, call: PlannerCall): Promise<ModelResponse> {
    const u = (stream: number) =>
      uniform(this.#o.seed, hashString(`${context.nodeId}/minimal`), call.slot, stream);
    if (u(1) < this.#o.flagRate) return reply('{"minimal": tr', 'length');
    const truth = context.depth >= Math.min(this.#o.depth, context.maxDepth);
    const minimal = u(2) < this.#o.errorRate ? !truth : truth;
    return reply(
      JSON.stringify({
        minimal,
        reason: minimal ? 'One small, checkable change.' : 'Several separable parts.',
      }),
    );
  }

  proposeSplit(context: NodeContext, call: PlannerCall): Promise<ModelResponse> {
    const u = (stream: number) =>
      uniform(this.#o.seed, hashString(`${context.nodeId}/split`), call.slot, stream);
    if (u(1) < this.#o.flagRate) return reply('{"subtasks": [{"title": "Set up', 'length');
    if (this.#o.clarify && context.nodeId === 'root' && context.clarifications.length === 0) {
      return reply(
        JSON.stringify({
          subtasks: this.#subtasks(context, false),
          ambiguity: {
            question: `"${context.idea}" can be read more than one way. Which do you want?`,
            options: ['A minimal version', 'A full-featured version'],
          },
        }),
      );
    }
    return reply(
      JSON.stringify({
        subtasks: this.#subtasks(context, u(2) < this.#o.errorRate),
        ambiguity: null,
      }),
    );
  }

  castBallot(
    context: NodeContext,
    question: string,
    options: readonly BallotOption[],
    call: PlannerCall,
  ): Promise<ModelResponse> {
    const u = (stream: number) =>
      uniform(
        this.#o.seed,
        hashString(`${context.nodeId}/ballot/${options.length}`),
        call.slot,
        stream,
      );
    if (u(1) < this.#o.flagRate) return reply('{"choice": ', 'length');
    // A blame ballot (which earlier result caused a failure): a wrong one, else "none of these".
    const right = /most likely cause/.test(question)
      ? (options.find((o) => isWrong(o.content)) ??
        options.find((o) => o.content.startsWith('None of these')))
      : (options.find((o) => !isWrong(o.content)) ?? options[0]);
    const pick = u(2) < this.#o.judgeAccuracy ? right : options[Math.floor(u(3) * options.length)];
    return reply(JSON.stringify({ choice: pick?.label ?? 'A', reason: 'Closest to the subtask.' }));
  }

  reviewCandidate(context: NodeContext, diff: string, call: PlannerCall): Promise<ModelResponse> {
    const u = (stream: number) =>
      uniform(this.#o.seed, hashString(`${context.nodeId}/review`), call.slot, stream);
    if (u(1) < this.#o.flagRate) return reply('not json');
    const confused = diff.includes(CONFUSED);
    const suspect = confused ? u(2) < 0.9 : false;
    return reply(
      JSON.stringify({
        verdict: suspect ? 'suspect' : 'ok',
        confidence: suspect ? 0.9 : 0.95,
        reason: suspect ? 'The change hedges instead of doing the task.' : 'On task.',
      }),
    );
  }

  /**
   * An acceptance test for a leaf, from its task alone: its module must describe it (as the sim
   * worker's right answer does). A wrong answer is a test of nothing, which passes without the
   * code (MAKER discards it); a flagged one is cut short.
   */
  proposeTest(context: NodeContext, call: PlannerCall): Promise<ModelResponse> {
    const u = (stream: number) =>
      uniform(this.#o.seed, hashString(`${context.nodeId}/test`), call.slot, stream);
    if (u(1) < this.#o.flagRate) return reply('{"test": {"path": ', 'length');
    const dir =
      context.task.files.find((f) => f.endsWith('/') && !f.endsWith('NOTES.md')) ??
      simNodeDir(context.nodeId);
    const path = `${dir}acceptance.test.mjs`;
    const body =
      u(2) < this.#o.errorRate
        ? "test('planned', () => {});"
        : `import { describe } from './index.mjs';\n\ntest(${JSON.stringify(`describes ${context.task.title}`)}, () => {\n  assert.equal(describe(), ${JSON.stringify(context.task.title)});\n});`;
    const content = `// SIMULATED by MAKER's sim planner: an acceptance test written from the task alone.\nimport { test } from 'node:test';\nimport assert from 'node:assert/strict';\n${body}\n`;
    return reply(
      JSON.stringify({
        test: { path, content, command: `node ${path}` },
        reason: 'Its module says what it does.',
      }),
    );
  }

  /**
   * A probe for a leaf, from its task alone: it loads the leaf's module and prints what
   * `describe()` returns, or the error it threw. A wrong answer prints a constant line, which shows
   * nothing of any candidate (MAKER keys no candidate by it); a flagged one is cut short.
   */
  proposeProbe(context: NodeContext, call: PlannerCall): Promise<ModelResponse> {
    const u = (stream: number) =>
      uniform(this.#o.seed, hashString(`${context.nodeId}/probe`), call.slot, stream);
    if (u(1) < this.#o.flagRate) return reply('{"probe": {"path": ', 'length');
    const dir =
      context.task.files.find((f) => f.endsWith('/') && !f.endsWith('NOTES.md')) ??
      simNodeDir(context.nodeId);
    const path = `${dir}probe.mjs`;
    const body =
      u(2) < this.#o.errorRate
        ? "console.log('probe ran');"
        : "try {\n  const { describe } = await import('./index.mjs');\n  console.log(JSON.stringify(describe()));\n} catch (error) {\n  console.log(`${error.name}: ${error.message}`);\n}";
    const content = `// SIMULATED by MAKER's sim planner: a probe written from the task alone.\n${body}\n`;
    return reply(
      JSON.stringify({
        probe: { path, content, command: `node ${path}` },
        reason: 'Its module says what it does.',
      }),
    );
  }

  #subtasks(context: NodeContext, variant: boolean): Subtask[] {
    const id = context.nodeId;
    const count = 2 + (hashString(`${this.#o.seed}/${id}/count`) % 2);
    const leavesNext = context.depth + 1 >= Math.min(this.#o.depth, context.maxDepth);
    const conflicting =
      leavesNext &&
      uniform(this.#o.seed, hashString(`${id}/conflict`), 0, 0) < this.#o.conflictRate;
    const clarified = context.clarifications.map((c) => ` (${c.answer})`).join('');
    return Array.from({ length: count }, (_, i) => {
      const child = childId(id, i);
      const title =
        id === 'root' ? (ROOT_PARTS[i] as string) : `${context.task.title}, step ${i + 1}`;
      return {
        title,
        description: `${title} for "${context.idea}"${clarified}.${variant && i === count - 1 ? ` ${WRONG}.` : ''}`,
        acceptance: [`${simNodeDir(child)}index.md describes ${title.toLowerCase()}`],
        files: [simNodeDir(child), ...(conflicting ? [`${simNodeDir(id)}NOTES.md`] : [])],
        dependsOn: i % 2 === 1 ? [i - 1] : [],
        // Runnable with Node alone: each test the worker writes under the subtask's directory, run
        // directly (a node:test file exits 1 when a test fails), one Node process per test file. No test at all fails too.
        check: `ts=$(find ${simNodeDir(child).slice(0, -1)} -name '*.test.mjs'); test -n "$ts" && for t in $ts; do node "$t" || exit 1; done`,
      };
    });
  }
}

/**
 * The simulated worker: writes each leaf's `index.md`, a tiny module and its `node --test` test (and
 * shared notes), sometimes wrongly.
 */
export class SimWorker implements Worker {
  readonly id = 'sim';
  readonly #o: Required<ProjectSimOptions>;

  constructor(options: ProjectSimOptions) {
    this.#o = withDefaults(options);
  }

  run(task: WorkerTask, slot: number): Promise<WorkerOutput> {
    const { context } = task;
    const coordinate =
      task.integration === undefined
        ? `${context.nodeId}/work`
        : `${context.nodeId}/integrate/${task.integration.conflicts.join(',')}`;
    const u = (stream: number) => uniform(this.#o.seed, hashString(coordinate), slot, stream);
    if (u(1) < this.#o.failRate)
      return Promise.resolve({ ok: false, reason: 'The simulated worker gave up.' });
    if (task.integration !== undefined) {
      const edits = task.integration.conflicts.map((path) => ({
        path,
        content: union(
          task.integration?.ours ?? [],
          task.integration?.theirs ?? [],
          path,
          u(2) < this.#o.errorRate,
        ),
      }));
      return Promise.resolve({ ok: true, edits, summary: 'Kept both sides.' });
    }
    if (u(3) < this.#o.flagRate) {
      // Out of scope: a red flag.
      return Promise.resolve({
        ok: true,
        edits: [{ path: `scratch/${context.nodeId}.tmp`, content: 'stray\n' }],
        summary: 'Wrote elsewhere.',
      });
    }
    const { title, description, acceptance, files } = context.task;
    const wrong = u(4) < this.#o.errorRate;
    const confused = !wrong && u(5) < this.#o.confusedRate;
    const body = [
      `# ${title}`,
      '',
      description,
      '',
      'Done when:',
      ...acceptance.map((a) => `- ${a}`),
      ...(wrong ? ['', WRONG] : []),
      ...(confused ? ['', CONFUSED] : []),
      '',
    ].join('\n');
    const dir =
      files.find((f) => f.endsWith('/') && !f.endsWith('NOTES.md')) ?? simNodeDir(context.nodeId);
    const edits: FileEdit[] = [
      { path: `${dir}index.md`, content: body },
      ...simModule(dir, title, wrong),
    ];
    const notes = files.find((f) => f.endsWith('NOTES.md'));
    if (notes !== undefined) edits.push({ path: notes, content: `- ${title}\n` });
    return Promise.resolve({
      ok: true,
      edits,
      summary: `Describe ${title.toLowerCase()}.`,
      finishReason: 'stop',
      tokens: Math.ceil(body.length / 4),
    });
  }
}

/**
 * A tiny runnable module and its `node --test` test, so a simulated run's checks execute real code:
 * `index.mjs` names the subtask, and its test asserts that it does. A wrong answer's module says
 * TODO instead, and its own test fails. Both say they are simulated.
 */
export function simModule(dir: string, title: string, wrong: boolean): FileEdit[] {
  const said = JSON.stringify(wrong ? WRONG : title);
  return [
    {
      path: `${dir}index.mjs`,
      content: `// SIMULATED by MAKER's sim worker: a placeholder module, not real work.\nexport function describe() {\n  return ${said};\n}\n`,
    },
    {
      path: `${dir}index.test.mjs`,
      content: `// SIMULATED by MAKER's sim worker: a placeholder test (node:test; run directly or by node --test).\nimport { test } from 'node:test';\nimport assert from 'node:assert/strict';\nimport { describe } from './index.mjs';\n\ntest(${JSON.stringify(`describes ${title}`)}, () => {\n  assert.equal(describe(), ${JSON.stringify(title)});\n});\n`,
    },
  ];
}

function union(
  ours: readonly FileEdit[],
  theirs: readonly FileEdit[],
  path: string,
  dropOne: boolean,
): string {
  const lines = new Set<string>();
  for (const side of [ours, theirs])
    for (const line of (side.find((f) => f.path === path)?.content ?? '').split('\n'))
      if (line.trim() !== '') lines.add(line);
  const sorted = [...lines].sort();
  if (dropOne) sorted.pop();
  return `${sorted.join('\n')}\n`;
}

function isWrong(content: string): boolean {
  return content.includes(WRONG) || content.includes(CONFUSED);
}

function reply(
  text: string,
  finishReason: ModelResponse['finishReason'] = 'stop',
): Promise<ModelResponse> {
  return Promise.resolve({ text, finishReason, outputTokens: Math.ceil(text.length / 4) });
}

function withDefaults(o: ProjectSimOptions): Required<ProjectSimOptions> {
  return {
    seed: o.seed,
    depth: o.depth ?? 2,
    flagRate: o.flagRate ?? 0.05,
    errorRate: o.errorRate ?? 0.1,
    failRate: o.failRate ?? 0.03,
    confusedRate: o.confusedRate ?? 0.03,
    conflictRate: o.conflictRate ?? 0.3,
    judgeAccuracy: o.judgeAccuracy ?? 0.9,
    clarify: o.clarify ?? false,
  };
}
