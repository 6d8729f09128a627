import { z } from 'zod';
import { inScope } from '../core/paths.js';
import type { LanguageModel } from '../ports/language-model.js';
import type { Worker, WorkerOutput, WorkerTask } from '../ports/worker.js';
import type { Workspace } from '../ports/workspace.js';
import { describeNode } from './llm-planner.js';

const MAX_CONTEXT_FILES = 30;
const MAX_CONTEXT_CHARS = 60_000;
const MAX_OUTPUT_TOKENS = 16_384;

const editsSchema = z.object({
  files: z.array(z.object({ path: z.string().min(1), content: z.string().nullable() })).min(1),
  summary: z.string().default(''),
});
const EDITS_JSON_SCHEMA = z.toJSONSchema(editsSchema, { io: 'input' });

/**
 * The embedded worker: a language model writes whole-file edits for one minimal subtask, given the
 * current contents of the files in its scope; the engine turns them into a patch at the base.
 */
export class LlmWorker implements Worker {
  readonly id: string;
  readonly #model: LanguageModel;
  readonly #workspace: Workspace;

  constructor(model: LanguageModel, workspace: Workspace) {
    this.#model = model;
    this.#workspace = workspace;
    this.id = `gemini:${model.id}`;
  }

  async run(task: WorkerTask, slot: number, signal?: AbortSignal): Promise<WorkerOutput> {
    const files = await this.#contextFiles(task);
    const shown = files
      .map((f) => `=== ${f.path} ===\n${f.content ?? '(does not exist)'}`)
      .join('\n\n');
    const integration =
      task.integration === undefined
        ? ''
        : `\n\nTwo branches changed these files differently: ${task.integration.conflicts.join(', ')}.\n${task.integration.ours.map((f) => `=== ours: ${f.path} ===\n${f.content ?? '(deleted)'}`).join('\n\n')}\n\n${task.integration.theirs.map((f) => `=== theirs: ${f.path} ===\n${f.content ?? '(deleted)'}`).join('\n\n')}\nWrite each file so both sides' intent is kept, with no conflict markers.`;
    const response = await this.#model.generate({
      system:
        'You are a careful software engineer. Make exactly the change the task asks for, nothing else. Answer only with the JSON requested.',
      prompt: `${describeNode(task.context)}\n\nCurrent files in scope:\n${shown || '(none yet)'}${integration}\n\nReply as JSON {"files": [{"path": relative path, "content": the complete new file content, or null to delete}], "summary": one line for the commit message}. Include only files you create, change or delete.`,
      temperature: slot % 1000 === 0 ? 0 : 0.1,
      maxOutputTokens: MAX_OUTPUT_TOKENS,
      json: { schema: EDITS_JSON_SCHEMA },
      signal,
    });
    let json: unknown;
    try {
      json = JSON.parse(response.text);
    } catch {
      return {
        ok: false,
        reason: `The model's answer is not JSON${response.finishReason === 'length' ? ' (it was cut off at the output cap)' : ''}.`,
      };
    }
    const parsed = editsSchema.safeParse(json);
    if (!parsed.success)
      return {
        ok: false,
        reason: `The model's answer does not fit the edit schema: ${parsed.error.issues[0]?.message ?? ''}`,
      };
    return {
      ok: true,
      edits: parsed.data.files,
      summary: parsed.data.summary,
      ...(response.finishReason === undefined ? {} : { finishReason: response.finishReason }),
      tokens: (response.outputTokens ?? 0) + (response.inputTokens ?? 0),
    };
  }

  async #contextFiles(task: WorkerTask) {
    const scope = task.context.task.files;
    if (scope.length === 0) return [];
    const all = await this.#workspace.listFiles(task.baseCommit);
    const chosen = all.filter((path) => inScope(path, scope)).slice(0, MAX_CONTEXT_FILES);
    const contents = await this.#workspace.readFiles(task.baseCommit, chosen);
    let budget = MAX_CONTEXT_CHARS;
    return contents.filter((f) => (budget -= f.content?.length ?? 0) >= 0);
  }
}
