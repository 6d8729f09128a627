import type { GenerateRequest } from '../../src/ports/language-model.js';
import type { FakeGeminiRequest } from '../../src/offline/fake-gemini.js';

/**
 * The one place in the tests that knows how MAKER's prompts are worded. Scripted models ask it
 * what a request is for and what it says about its node, so rewording a prompt changes this file
 * alone. A request's role comes from the JSON schema its answer must follow (what the answer is,
 * not how it is asked), then from stable phrases for requests that carry no schema.
 */

/** What a request asks for. `blame`: a ballot on which finished subtask caused failing checks. */
export type PromptRole =
  'minimal' | 'split' | 'ballot' | 'blame' | 'review' | 'worker' | 'test' | 'probe';

/** A request as a scripted model sees it: through the `LanguageModel` port or the fake Gemini API. */
export type ModelRequest =
  Pick<GenerateRequest, 'prompt' | 'json'> | Pick<FakeGeminiRequest, 'prompt' | 'body'>;

const BY_PROPERTY: readonly (readonly [string, PromptRole])[] = [
  ['minimal', 'minimal'],
  ['subtasks', 'split'],
  ['choice', 'ballot'],
  ['verdict', 'review'],
  ['files', 'worker'],
  ['test', 'test'],
  ['probe', 'probe'],
];

const BY_PHRASE: readonly (readonly [RegExp, PromptRole])[] = [
  [/Is this task minimal/, 'minimal'],
  [/Split this task/, 'split'],
  [/"choice"/, 'ballot'],
  [/A proposal for this task/, 'review'],
  [/Reply as JSON \{"files"|a line "File: <relative path>"/, 'worker'],
  [/write one acceptance test/, 'test'],
  [/write one probe/, 'probe'],
];

/** The role of `request`, or undefined for a request MAKER's engine does not send. */
export function promptRole(request: ModelRequest): PromptRole | undefined {
  const properties = schemaProperties(request);
  const role =
    BY_PROPERTY.find(([p]) => p in properties)?.[1] ??
    BY_PHRASE.find(([phrase]) => phrase.test(request.prompt))?.[1];
  return role === 'ballot' && isBlame(request.prompt) ? 'blame' : role;
}

function schemaProperties(request: ModelRequest): Record<string, unknown> {
  const schema =
    'json' in request && request.json !== undefined
      ? request.json.schema
      : 'body' in request
        ? (request.body as { generationConfig?: { responseJsonSchema?: unknown } } | undefined)
            ?.generationConfig?.responseJsonSchema
        : undefined;
  const properties = (schema as { properties?: unknown } | undefined)?.properties;
  return typeof properties === 'object' && properties !== null
    ? (properties as Record<string, unknown>)
    : {};
}

/** Whether a ballot asks which earlier subtask's result most likely caused failing checks. */
function isBlame(prompt: string): boolean {
  return prompt.includes('most likely cause of these failures');
}

/** Whether the prompt is for the root (the minimality and split prompts say the node's depth). */
export function atRoot(prompt: string): boolean {
  return prompt.includes('Decomposition depth: 0');
}

/** Whether the prompt's node is the task titled `title` (or one whose title starts with it). */
export function isTask(prompt: string, title: string): boolean {
  return prompt.includes(`Task: ${title}`);
}

/** The title of the prompt's node (its task), or undefined when the prompt names none. */
export function taskTitle(prompt: string): string | undefined {
  return /^Task: (.+)$/m.exec(prompt)?.[1];
}

/** Whether the prompt's node is an integration (a merge conflict to reconcile). */
export function isIntegration(prompt: string): boolean {
  return /^Task: Integrate /m.test(prompt);
}

/** The paths the prompt's node may touch, as its description lists them (empty: not said). */
export function touchable(prompt: string): string[] {
  return splitPaths(/^Files it may touch: (.*)$/m.exec(prompt)?.[1]);
}

/** The paths a worker is told it may write (empty: not said). */
export function writable(prompt: string): string[] {
  return splitPaths(/^- Write only these paths: (.*?)\. Writing any other path/m.exec(prompt)?.[1]);
}

function splitPaths(line: string | undefined): string[] {
  return (line ?? '')
    .split(',')
    .map((f) => f.trim())
    .filter((f) => f !== '');
}

/** The options a ballot shows, by label, each with its content exactly as shown. */
export function ballotOptions(prompt: string): { label: string; content: string }[] {
  return [
    ...prompt.matchAll(/=== Option ([A-Z]) ===\n([^]*?)(?=\n\n=== Option|\n\nReply as JSON|$)/g),
  ].map((m) => ({ label: m[1] ?? '', content: m[2] ?? '' }));
}
