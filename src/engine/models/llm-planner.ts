import { clip } from '../../core/limits.js';
import type { ModelResponse } from '../../core/red-flags/index.js';
import type {
  BallotOption,
  NodeContext,
  Planner,
  PlannerCall,
  RepoContext,
} from '../../ports/planner.js';
import type { LanguageModel } from '../../ports/language-model.js';
import { JSON_SCHEMAS, PLANNER_MAX_TOKENS } from '../vote/parse.js';

const SYSTEM = `You are one independent voter inside MAKER, a system that builds software by splitting work into minimal subtasks, sampling several answers for each decision and keeping only answers that agree. Answer only with the JSON requested. Be concrete; never invent requirements the task does not state.`;

/**
 * Describes a node to a model: the idea, the tasks it is part of, its task, what it may write, and
 * what people clarified. The root's task is the idea itself, said once. The decomposition depth
 * is said only where it matters (`depth`: the minimality and split prompts); sibling subtasks
 * only where they help (`siblings`: the worker, which must fit in with them).
 */
export function describeNode(
  context: NodeContext,
  options: { readonly depth?: boolean; readonly siblings?: boolean } = {},
): string {
  const { task } = context;
  // The root's title is the idea: not repeated as a parent.
  const parents = context.ancestors.filter((a, i) => i > 0 || !context.idea.startsWith(a));
  const lines: string[] = [];
  if (context.ancestors.length > 0 || task.title !== context.idea)
    lines.push(`Overall idea: ${context.idea}`);
  if (parents.length > 0) lines.push(`Part of: ${parents.join(' › ')}`);
  lines.push(`Task: ${task.title}`);
  if (task.description !== task.title && task.description !== context.idea)
    lines.push(`Description: ${task.description}`);
  if (task.acceptance.length > 0)
    lines.push(`Done when:\n${task.acceptance.map((a) => `- ${a}`).join('\n')}`);
  if (task.check !== undefined) lines.push(`Its check (a command that must pass): ${task.check}`);
  const shared = task.shared ?? [];
  const own = (context.scope ?? task.files).filter((f) => !shared.includes(f));
  if (own.length > 0) lines.push(`Files it may touch: ${own.join(', ')}`);
  if (shared.length > 0)
    lines.push(
      `Shared files it may add to (other subtasks add to them too: keep their entries): ${shared.join(', ')}`,
    );
  if (options.siblings === true && (context.siblings ?? []).length > 0)
    lines.push(
      `Other subtasks of the same plan, done by others (use what they promise, do not do their work):\n${(context.siblings ?? []).map((s) => `- ${s.title}: ${s.promises}`).join('\n')}`,
    );
  if (context.clarifications.length > 0)
    lines.push(
      `Clarified by the person:\n${context.clarifications.map((c) => `- ${c.question} → ${c.answer}`).join('\n')}`,
    );
  if (options.depth === true)
    lines.push(`Decomposition depth: ${context.depth} of at most ${context.maxDepth}.`);
  return lines.join('\n');
}

/** Characters of the repository map in a judge's or the minimality prompt (about 3k tokens). */
export const MAP_CONTEXT_CHARS = 12_000;

/** A repository view as a prompt says it: an empty repository is said to be empty. */
export function repositoryText(view: RepoContext, header = ''): string {
  if (view.text !== '') return `${header}${view.text}`;
  return view.omitted.length > 0
    ? `The repository (${view.omitted.length} paths) is not shown: it does not fit the context budget.`
    : 'The repository is empty.';
}

/** The repository's map (every path, outlines of source files) for a prompt that reads a task or a diff. */
async function repositoryMap(context: NodeContext): Promise<string> {
  if (context.repository === undefined) return '';
  return `\n\n${repositoryText(await context.repository(MAP_CONTEXT_CHARS, { mapOnly: true }))}`;
}

/** Characters of repository context in a split prompt unless told otherwise (about 15k tokens). */
export const SPLIT_CONTEXT_CHARS = 60_000;

/**
 * The planner and judge roles over a real language model, with JSON-schema-constrained answers.
 * A split prompt also shows the node's view of the repository, within `splitContextChars`.
 */
export class LlmPlanner implements Planner {
  readonly id: string;
  readonly #model: LanguageModel;
  readonly #splitContextChars: number;

  constructor(model: LanguageModel, options: { splitContextChars?: number } = {}) {
    this.#model = model;
    this.#splitContextChars = options.splitContextChars ?? SPLIT_CONTEXT_CHARS;
    this.id = model.id;
  }

  async isMinimal(context: NodeContext, call: PlannerCall): Promise<ModelResponse> {
    return this.#ask(
      `${describeNode(context, { depth: true })}${await repositoryMap(context)}\n\nIs this task minimal: one small, self-contained change that a coding agent can make and check in one go (roughly one file or function, under 200 changed lines)? Reply as JSON {"minimal": boolean, "reason": string}.`,
      JSON_SCHEMAS.minimal,
      call,
      `${context.nodeId}:minimal`,
    );
  }

  async proposeSplit(context: NodeContext, call: PlannerCall): Promise<ModelResponse> {
    const described = describeNode(context, { depth: true });
    const repository =
      context.repository === undefined
        ? undefined
        : await context.repository(Math.max(0, this.#splitContextChars - described.length));
    return this.#ask(
      `${described}${repository === undefined ? '' : `\n\n${repositoryText(repository, 'The repository as it is now:\n')}`}\n\nSplit this task into 2 to 8 ordered subtasks that together complete it, with no overlap. For each give: "title"; a self-contained "description" (the subtask is done by someone who sees only it); "acceptance" checks; "files" (the paths or directories, relative to the repository root, that it owns: it may create or change them, and no other subtask owns them); "provides" (what it promises the other subtasks, who see only its title and this: the exported names with their signatures, the commands, or the files they may use; omit it when it offers them nothing); "shared" (files several subtasks add entries to, such as package.json, pyproject.toml, __init__.py or an index file: list such a file under "shared" of every subtask that adds to it, never under "files"; a subtask's work that writes any file not in its "files" or "shared" is discarded); "dependsOn" (indices of earlier subtasks it builds on); ${context.checks === undefined ? 'optionally "check", a shell command that passes when it is done' : '"check" (required), a shell command that passes when it is done'}. If the task is ambiguous in a way that changes what should be built, also give "ambiguity": {"question", "options"} for the person; otherwise "ambiguity": null.${context.checks === undefined ? '' : `\n\n${context.checks}`}`,
      JSON_SCHEMAS.split,
      call,
      `${context.nodeId}:split`,
    );
  }

  async castBallot(
    context: NodeContext,
    question: string,
    options: readonly BallotOption[],
    call: PlannerCall,
  ): Promise<ModelResponse> {
    const listed = options.map((o) => `=== Option ${o.label} ===\n${o.content}`).join('\n\n');
    const described = describeNode(context);
    // The repository as the worker saw it (within what the options leave of the budget).
    const repository =
      context.repository === undefined
        ? ''
        : (
            await context.repository(
              Math.max(0, this.#splitContextChars - described.length - listed.length),
            )
          ).text;
    return this.#ask(
      `${described}${repository === '' ? '' : `\n\nThe repository as it is now:\n${repository}`}\n\n${question}\n\n${listed}\n\nReply as JSON {"choice": the option's letter, "reason": string}.`,
      JSON_SCHEMAS.ballot,
      call,
      `${context.nodeId}:ballot`,
    );
  }

  async reviewCandidate(
    context: NodeContext,
    candidate: string,
    call: PlannerCall,
  ): Promise<ModelResponse> {
    return this.#ask(
      `${describeNode(context)}${await repositoryMap(context)}\n\nA proposal for this task (a code change or a decomposition):\n\n${clip(candidate, 20_000)}\n\nIs it a faithful attempt at the task, or off-task, confused or hallucinated (placeholder code, unrelated files, hedging text, subtasks that do not add up to the task)? Reply as JSON {"verdict": "ok" | "suspect", "confidence": 0..1, "reason": string}.`,
      JSON_SCHEMAS.review,
      call,
      `${context.nodeId}:review`,
    );
  }

  async proposeTest(context: NodeContext, call: PlannerCall): Promise<ModelResponse> {
    return this.#ask(
      `${describeNode(context, { siblings: true })}${await repositoryMap(context)}${context.checks === undefined ? '' : `\n\n${context.checks}`}\n\nBefore anyone writes this task's code, write one acceptance test for it from the task and its "Done when" criteria alone: a test file inside the files it may touch (when none of them is a test file, a new test file beside them that no other subtask writes: it then only checks this task's candidates and is not committed), that exercises the behaviour they describe (inputs and the outputs, exit codes or errors they require; edge cases the criteria name), and the shell command that runs just that test from the repository root. It must fail on the repository as it is now, without the task's code, and pass once the task is done as described; do not test what the task does not state. Reply as JSON {"test": {"path": string, "content": string, "command": string}, "reason": string}, or {"test": null, "reason": string} when the criteria describe no behaviour a test could check (documentation, a manifest's wording).`,
      JSON_SCHEMAS.test,
      call,
      `${context.nodeId}:test`,
    );
  }

  async proposeProbe(context: NodeContext, call: PlannerCall): Promise<ModelResponse> {
    return this.#ask(
      `${describeNode(context, { siblings: true })}${await repositoryMap(context)}${context.checks === undefined ? '' : `\n\n${context.checks}`}\n\nBefore anyone writes this task's code, write one probe for it from the task and its "Done when" criteria alone: a small program, inside the files it may touch, that calls the interface the task describes (its functions, its command line) on representative and edge inputs, catches whatever each call throws, and prints what it observes, one line per input: results, thrown errors' types and messages, exit codes. It must not assert, must not print times, paths, random values or anything else that varies between runs, and must exit 0 once it has printed everything. Candidates that print the same under it are taken to behave alike. Also give the shell command that runs it from the repository root. Reply as JSON {"probe": {"path": string, "content": string, "command": string}, "reason": string}, or {"probe": null, "reason": string} when there is nothing to call (documentation, a manifest).`,
      JSON_SCHEMAS.probe,
      call,
      `${context.nodeId}:probe`,
    );
  }

  /** `role` names the draw with the call's slot, for recording and replay. */
  #ask(
    prompt: string,
    schema: Readonly<Record<string, unknown>>,
    call: PlannerCall,
    role: string,
  ): Promise<ModelResponse> {
    return this.#model.generate({
      system: SYSTEM,
      prompt,
      temperature: call.temperature,
      maxOutputTokens: call.sampling?.answerTokens ?? PLANNER_MAX_TOKENS,
      ...(call.sampling?.thinkingBudget === undefined
        ? {}
        : { thinkingBudget: call.sampling.thinkingBudget }),
      ...(call.sampling?.thinkingLevel === undefined
        ? {}
        : { thinkingLevel: call.sampling.thinkingLevel }),
      json: { schema },
      signal: call.signal,
      draw: `${role}:${call.slot}`,
    });
  }
}
