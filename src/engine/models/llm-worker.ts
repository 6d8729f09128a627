import { z } from 'zod';
import { samplingFor } from '../../core/sampling.js';
import { parseFencedEdits } from '../../core/fenced-edits.js';
import { unfence } from '../../core/red-flags/index.js';
import { billedTokens, type LanguageModel } from '../../ports/language-model.js';
import type { RepoContext } from '../../ports/planner.js';
import type { Worker, WorkerOutput, WorkerTask } from '../../ports/worker.js';
import type { FileEdit, Repository } from '../../ports/workspace.js';
import { describeNode, repositoryText } from './llm-planner.js';
import { repoContextBuilder } from '../context/repo-context.js';

/** Characters of repository context per prompt unless the worker is told otherwise (about 30k tokens). */
export const WORKER_CONTEXT_CHARS = 120_000;

const editsSchema = z
  .object({
    files: z.array(z.object({ path: z.string().min(1), content: z.string().nullable() })),
    summary: z.string().default(''),
    /** Files outside its list the task cannot be done without: the node is planned again with them. */
    needsFiles: z.array(z.string().min(1).max(512)).max(10).optional(),
  })
  .refine((a) => a.files.length > 0 || (a.needsFiles ?? []).length > 0, {
    message: 'no files, and no needsFiles',
  });
const EDITS_JSON_SCHEMA = z.toJSONSchema(editsSchema, { io: 'input' });

import { DEFAULT_EDIT_FORMAT, type EditFormat } from '../../core/edit-formats.js';

export { DEFAULT_EDIT_FORMAT, EDIT_FORMATS, type EditFormat } from '../../core/edit-formats.js';

interface ParsedEdits {
  readonly files: { path: string; content: string | null }[];
  readonly summary: string;
  readonly needsFiles: string[];
}

/**
 * The embedded worker: a language model writes whole-file edits for one minimal subtask, given the
 * node's view of the repository (the files in its scope, the files its dependencies changed, a map
 * of every path) within a character budget; the engine turns the edits into a patch at the base.
 */
export class LlmWorker implements Worker {
  readonly id: string;
  readonly #model: LanguageModel;
  readonly #workspace: Repository;
  readonly #contextChars: number;
  readonly #format: EditFormat;

  /**
   * `contextChars` bounds the repository context of each prompt (default {@link WORKER_CONTEXT_CHARS});
   * `editFormat` is how the answer carries files (default {@link DEFAULT_EDIT_FORMAT}).
   */
  constructor(
    model: LanguageModel,
    workspace: Repository,
    options: { contextChars?: number; editFormat?: EditFormat } = {},
  ) {
    this.#model = model;
    this.#workspace = workspace;
    this.#contextChars = options.contextChars ?? WORKER_CONTEXT_CHARS;
    this.#format = options.editFormat ?? DEFAULT_EDIT_FORMAT;
    this.id = `gemini:${model.id}`;
  }

  async run(task: WorkerTask, slot: number, signal?: AbortSignal): Promise<WorkerOutput> {
    const integration = task.integration === undefined ? '' : integrationText(task.integration);
    const described = `${describeNode(task.context, { siblings: true })}`;
    const budget = Math.max(0, this.#contextChars - described.length - integration.length);
    const repository = task.context.repository ?? this.#ownView(task);
    const { text, omitted } = await repository(budget);
    const shown = repositoryText({ text, omitted, chars: text.length, budget });
    const sampling = task.sampling ?? samplingFor(this.#model.id, 'worker');
    const cap = sampling.answerTokens;
    const fenced = this.#format === 'fenced';
    const response = await this.#model.generate({
      system: `You are a careful software engineer. Make exactly the change the task asks for, nothing else. Answer only ${fenced ? 'in the format requested' : 'with the JSON requested'}.`,
      prompt: `${described}\n\n${shown}${integration}\n\n${answerRules(task, this.#format)}\n\n${fenced ? FENCED_REPLY : JSON_REPLY}`,
      temperature: sampling.temperature,
      maxOutputTokens: cap,
      ...(sampling.thinkingBudget === undefined ? {} : { thinkingBudget: sampling.thinkingBudget }),
      ...(sampling.thinkingLevel === undefined ? {} : { thinkingLevel: sampling.thinkingLevel }),
      ...(fenced ? {} : { json: { schema: EDITS_JSON_SCHEMA } }),
      signal,
      draw: `${task.context.nodeId}:worker:${slot}`,
    });
    const tokens = billedTokens(response);
    const modelCalls = response.requests ?? 1;
    // Over its cap is as cut off, though room left for thinking let it finish.
    const stop = (response.outputTokens ?? 0) > cap ? 'length' : response.finishReason;
    const why =
      stop === 'length'
        ? ' (it was cut off at the output cap)'
        : stop === 'safety' || stop === 'other'
          ? ` (the model stopped with reason "${stop}")`
          : '';
    const read = fenced ? readFenced(response.text, why) : readJson(response.text, why);
    if (!read.ok) return { ok: false, reason: read.reason, tokens, modelCalls };
    const parsed = read.value;
    const needsFiles = parsed.needsFiles;
    if (needsFiles.length > 0)
      return {
        ok: false,
        reason: `The worker needs files outside its list: ${needsFiles.join(', ')}${parsed.summary === '' ? '' : ` (${parsed.summary})`}.`,
        needsFiles,
        tokens,
        modelCalls,
      };
    return {
      ok: true,
      edits: parsed.files,
      summary: parsed.summary,
      ...(stop === undefined ? {} : { finishReason: stop }),
      tokens,
      modelCalls,
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

const JSON_REPLY =
  'Reply as JSON {"files": [{"path": relative path, "content": the complete new file content, or null to delete}], "summary": one line for the commit message}. Include only files you create, change or delete.';

const FENCED_REPLY = [
  'Reply with each file you create or change as a line "File: <relative path>", then its complete new content in a fenced block, like this:',
  'File: src/example.js',
  '```js',
  'export const example = 1;',
  '```',
  'Include only files you create, change or delete. If a file\'s content holds a line starting with ```, fence that file with more backticks than any such line (````). Write nothing between the blocks. End with one ```json block: {"summary": one line for the commit message, "delete": [paths to delete]} ("delete" only when you delete files).',
].join('\n');

type Read = { ok: true; value: ParsedEdits } | { ok: false; reason: string };

/** A JSON answer: the whole text, or the one ```json block it is (as the planner's answers are read). */
function readJson(text: string, why: string): Read {
  let json: unknown;
  try {
    json = JSON.parse(unfence(text));
  } catch {
    return { ok: false, reason: `The model's answer is not JSON${why}.` };
  }
  const parsed = editsSchema.safeParse(json);
  if (!parsed.success)
    return {
      ok: false,
      reason: `The model's answer does not fit the edit schema${why}: ${parsed.error.issues[0]?.message ?? ''}`,
    };
  return { ok: true, value: { ...parsed.data, needsFiles: parsed.data.needsFiles ?? [] } };
}

/** A fenced answer, read strictly: a slip in its fences is an unusable answer, with the reason. */
function readFenced(text: string, why: string): Read {
  const parsed = parseFencedEdits(text);
  return parsed.ok
    ? parsed
    : {
        ok: false,
        reason: `The model's answer is not in the fenced edit format${why}: ${parsed.reason}.`,
      };
}

/**
 * The conflicting files of an integration, each in its three versions: at the merge base, then as
 * each side left it (named as its conflict markers name it).
 */
function integrationText(integration: NonNullable<WorkerTask['integration']>): string {
  const ours = integration.sides?.ours.label ?? 'ours';
  const theirs = integration.sides?.theirs.label ?? 'theirs';
  const version = (label: string, files: readonly FileEdit[] | undefined, path: string) => {
    const file = files?.find((f) => f.path === path);
    if (file === undefined) return '';
    return `=== ${path}, ${label} ===\n${file.content === null ? '(does not exist)\n' : withNewline(file.content)}`;
  };
  const versions = integration.conflicts.map((path) =>
    [
      version('at the merge base (before either side)', integration.base, path),
      version(`as ${ours} left it`, integration.ours, path),
      version(`as ${theirs} left it`, integration.theirs, path),
    ].join(''),
  );
  return `\n\nThe conflicting files, each at the merge base and as each side left it:\n${versions.join('')}In the repository above these files hold conflict markers between <<<<<<< ${ours} and >>>>>>> ${theirs}. Write each of them whole, so that it does what both sides set out to do, with no conflict markers.`;
}

const withNewline = (text: string) => (text.endsWith('\n') ? text : `${text}\n`);

/**
 * What a worker must know about the form of its answer: whole files (an omission marker deletes
 * what it stands for), only the paths it may write (any other discards the answer, and
 * `needsFiles` asks for more), and, in the JSON format, strings escaped once.
 */
function answerRules(task: WorkerTask, format: EditFormat): string {
  const scope = task.integration?.conflicts ?? task.context.scope ?? task.context.task.files;
  const where =
    scope.length === 0
      ? 'You may write any path in the repository.'
      : `Write only these paths: ${scope.join(', ')}. Writing any other path discards your whole answer. If the task cannot be done without changing another file, ${format === 'fenced' ? 'write no file: reply with only the ```json block {"needsFiles": [the paths you need], "summary": why}' : 'write nothing: reply {"files": [], "needsFiles": [the paths you need], "summary": why}'}, and the task is planned again with them.`;
  const form =
    format === 'fenced'
      ? "Each file's content is plain text in its fenced block, exactly as it is to be saved: escape nothing."
      : "Each file's content is one JSON string: escape each newline once, as JSON requires, never twice.";
  return `How to answer:\n- Write each file you create or change whole: its complete new content, from the first line to the last. Never stand a placeholder such as "// ... rest unchanged" or "...existing code..." for code you keep: whatever is not written out is deleted.\n- ${where}\n- ${form}`;
}
