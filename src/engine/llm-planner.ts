import { clip } from '../core/limits.js';
import type { ModelResponse } from '../core/red-flags.js';
import type { BallotOption, NodeContext, Planner, PlannerCall } from '../ports/planner.js';
import type { LanguageModel } from '../ports/language-model.js';
import { JSON_SCHEMAS, PLANNER_MAX_TOKENS } from './parse.js';

const SYSTEM = `You are one independent voter inside MAKER, a system that builds software by splitting work into minimal subtasks, sampling several answers for each decision and keeping only answers that agree. Answer only with the JSON requested. Be concrete; never invent requirements the task does not state.`;

/** Describes a node to a model: the idea, where the node sits, its task, and what people clarified. */
export function describeNode(context: NodeContext): string {
  const { task } = context;
  const lines = [
    `Overall idea: ${context.idea}`,
    context.ancestors.length > 0
      ? `Parent tasks (outermost first): ${context.ancestors.join(' › ')}`
      : 'This is the whole project.',
    `Task: ${task.title}`,
    `Description: ${task.description}`,
  ];
  if (task.acceptance.length > 0)
    lines.push(`Done when:\n${task.acceptance.map((a) => `- ${a}`).join('\n')}`);
  if (task.check !== undefined) lines.push(`Its check (a command that must pass): ${task.check}`);
  if (task.files.length > 0) lines.push(`Files it may touch: ${task.files.join(', ')}`);
  if (context.clarifications.length > 0)
    lines.push(
      `Clarified by the person:\n${context.clarifications.map((c) => `- ${c.question} → ${c.answer}`).join('\n')}`,
    );
  lines.push(`Decomposition depth: ${context.depth} of at most ${context.maxDepth}.`);
  return lines.join('\n');
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

  isMinimal(context: NodeContext, call: PlannerCall): Promise<ModelResponse> {
    return this.#ask(
      `${describeNode(context)}\n\nIs this task minimal: one small, self-contained change that a coding agent can make and check in one go (roughly one file or function, under 200 changed lines)? Reply as JSON {"minimal": boolean, "reason": string}.`,
      JSON_SCHEMAS.minimal,
      call,
      `${context.nodeId}:minimal`,
    );
  }

  async proposeSplit(context: NodeContext, call: PlannerCall): Promise<ModelResponse> {
    const described = describeNode(context);
    const repository =
      context.repository === undefined
        ? ''
        : (await context.repository(Math.max(0, this.#splitContextChars - described.length))).text;
    return this.#ask(
      `${described}${repository === '' ? '' : `\n\nThe repository as it is now:\n${repository}`}\n\nSplit this task into 2 to 8 ordered subtasks that together complete it, with no overlap. For each give: "title"; a self-contained "description" (the subtask is done by someone who sees only it); "acceptance" checks; "files" (paths or directories relative to the repository root that it may create or change; keep subtasks' files disjoint where possible); "dependsOn" (indices of earlier subtasks it builds on); ${context.checks === undefined ? 'optionally "check", a shell command that passes when it is done' : '"check" (required), a shell command that passes when it is done'}. If the task is ambiguous in a way that changes what should be built, also give "ambiguity": {"question", "options"} for the person; otherwise "ambiguity": null.${context.checks === undefined ? '' : `\n\n${context.checks}`}`,
      JSON_SCHEMAS.split,
      call,
      `${context.nodeId}:split`,
    );
  }

  castBallot(
    context: NodeContext,
    question: string,
    options: readonly BallotOption[],
    call: PlannerCall,
  ): Promise<ModelResponse> {
    const listed = options.map((o) => `=== Option ${o.label} ===\n${o.content}`).join('\n\n');
    return this.#ask(
      `${describeNode(context)}\n\n${question}\n\n${listed}\n\nReply as JSON {"choice": the option's letter, "reason": string}.`,
      JSON_SCHEMAS.ballot,
      call,
      `${context.nodeId}:ballot`,
    );
  }

  reviewCandidate(
    context: NodeContext,
    candidate: string,
    call: PlannerCall,
  ): Promise<ModelResponse> {
    return this.#ask(
      `${describeNode(context)}\n\nA proposal for this task (a code change or a decomposition):\n\n${clip(candidate, 20_000)}\n\nIs it a faithful attempt at the task, or off-task, confused or hallucinated (placeholder code, unrelated files, hedging text, subtasks that do not add up to the task)? Reply as JSON {"verdict": "ok" | "suspect", "confidence": 0..1, "reason": string}.`,
      JSON_SCHEMAS.review,
      call,
      `${context.nodeId}:review`,
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
      maxOutputTokens: PLANNER_MAX_TOKENS,
      json: { schema },
      signal: call.signal,
      draw: `${role}:${call.slot}`,
    });
  }
}
