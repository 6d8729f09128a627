import { z } from 'zod';
import { samplingFor } from '../core/sampling.js';
import { unfence } from '../core/red-flags.js';
import { billedTokens, type LanguageModel } from '../ports/language-model.js';
import type { RepoContext } from '../ports/planner.js';
import type { Worker, WorkerOutput, WorkerTask } from '../ports/worker.js';
import type { Workspace } from '../ports/workspace.js';
import { describeNode } from './llm-planner.js';
import { repoContextBuilder } from './repo-context.js';

/** Characters of repository context per prompt unless the worker is told otherwise (about 30k tokens). */
export const WORKER_CONTEXT_CHARS = 120_000;

const editsSchema = z.object({
  files: z.array(z.object({ path: z.string().min(1), content: z.string().nullable() })).min(1),
  summary: z.string().default(''),
});
const EDITS_JSON_SCHEMA = z.toJSONSchema(editsSchema, { io: 'input' });

/**
 * The embedded worker: a language model writes whole-file edits for one minimal subtask, given the
 * node's view of the repository (the files in its scope, the files its dependencies changed, a map
 * of every path) within a character budget; the engine turns the edits into a patch at the base.
 */
export class LlmWorker implements Worker {
  readonly id: string;
  readonly #model: LanguageModel;
  readonly #workspace: Workspace;
  readonly #contextChars: number;

  /** `contextChars` bounds the repository context of each prompt (default {@link WORKER_CONTEXT_CHARS}). */
  constructor(model: LanguageModel, workspace: Workspace, options: { contextChars?: number } = {}) {
    this.#model = model;
    this.#workspace = workspace;
    this.#contextChars = options.contextChars ?? WORKER_CONTEXT_CHARS;
    this.id = `gemini:${model.id}`;
  }

  async run(task: WorkerTask, slot: number, signal?: AbortSignal): Promise<WorkerOutput> {
    const integration =
      task.integration === undefined
        ? ''
        : `\n\nTwo branches changed these files differently: ${task.integration.conflicts.join(', ')}.\n${task.integration.ours.map((f) => `=== ours: ${f.path} ===\n${f.content ?? '(deleted)'}`).join('\n\n')}\n\n${task.integration.theirs.map((f) => `=== theirs: ${f.path} ===\n${f.content ?? '(deleted)'}`).join('\n\n')}\nWrite each file so both sides' intent is kept, with no conflict markers.`;
    const described = describeNode(task.context);
    const budget = Math.max(0, this.#contextChars - described.length - integration.length);
    const repository = task.context.repository ?? this.#ownView(task);
    const { text, omitted } = await repository(budget);
    const shown =
      text !== ''
        ? text
        : omitted.length > 0
          ? `The repository (${omitted.length} paths) is not shown: it does not fit the context budget.`
          : 'The repository is empty.';
    const sampling = task.sampling ?? samplingFor(this.#model.id, 'worker');
    const cap = sampling.answerTokens;
    const response = await this.#model.generate({
      system:
        'You are a careful software engineer. Make exactly the change the task asks for, nothing else. Answer only with the JSON requested.',
      prompt: `${described}\n\n${shown}${integration}\n\nReply as JSON {"files": [{"path": relative path, "content": the complete new file content, or null to delete}], "summary": one line for the commit message}. Include only files you create, change or delete.`,
      temperature: sampling.temperature,
      maxOutputTokens: cap,
      ...(sampling.thinkingBudget === undefined ? {} : { thinkingBudget: sampling.thinkingBudget }),
      ...(sampling.thinkingLevel === undefined ? {} : { thinkingLevel: sampling.thinkingLevel }),
      json: { schema: EDITS_JSON_SCHEMA },
      signal,
      draw: `${task.context.nodeId}:worker:${slot}`,
    });
    const tokens = billedTokens(response);
    // Over its cap is as cut off, though room left for thinking let it finish.
    const stop = (response.outputTokens ?? 0) > cap ? 'length' : response.finishReason;
    const why =
      stop === 'length'
        ? ' (it was cut off at the output cap)'
        : stop === 'safety' || stop === 'other'
          ? ` (the model stopped with reason "${stop}")`
          : '';
    let json: unknown;
    try {
      // The whole text, or the one ```json block it is (as the planner's answers are read).
      json = JSON.parse(unfence(response.text));
    } catch {
      return { ok: false, reason: `The model's answer is not JSON${why}.`, tokens };
    }
    const parsed = editsSchema.safeParse(json);
    if (!parsed.success)
      return {
        ok: false,
        reason: `The model's answer does not fit the edit schema${why}: ${parsed.error.issues[0]?.message ?? ''}`,
        tokens,
      };
    return {
      ok: true,
      edits: parsed.data.files,
      summary: parsed.data.summary,
      ...(stop === undefined ? {} : { finishReason: stop }),
      tokens,
    };
  }

  /** A view for a task the engine gave none (built by the same builder, not reported). */
  #ownView(task: WorkerTask): (budget: number) => Promise<RepoContext> {
    return (budget) =>
      repoContextBuilder(this.#workspace).build(
        { base: task.baseCommit, scope: task.context.task.files, dependencies: [] },
        budget,
      );
  }
}
