import type { GenerateRequest } from '../../ports/language-model.js';
import { OfflineError } from '../errors.js';
import type { ProductIdea } from './types.js';

/** The kinds of prompt MAKER sends a model. */
export type PromptKind = 'minimal' | 'split' | 'ballot' | 'review' | 'worker' | 'test' | 'probe';

/** Thrown for a prompt the realistic fake cannot place: it never answers one it does not understand. */
export class UnrecognisedPromptError extends OfflineError {
  override readonly name = 'UnrecognisedPromptError';
  constructor(what: string, request: Pick<GenerateRequest, 'prompt' | 'draw' | 'json'>) {
    const keys = Object.keys(schemaProperties(request.json?.schema)).join(', ');
    super(
      `realistic fake model: ${what} (draw ${request.draw ?? 'not given'}, JSON schema properties [${keys}]); the prompt begins: ${JSON.stringify(request.prompt.slice(0, 200))}`,
    );
  }
}

function schemaProperties(schema: unknown): Record<string, unknown> {
  const properties = (schema as { properties?: unknown } | undefined)?.properties;
  return typeof properties === 'object' && properties !== null
    ? (properties as Record<string, unknown>)
    : {};
}

const BY_PROPERTY: readonly (readonly [string, PromptKind])[] = [
  ['minimal', 'minimal'],
  ['subtasks', 'split'],
  ['choice', 'ballot'],
  ['verdict', 'review'],
  ['files', 'worker'],
  ['test', 'test'],
  ['probe', 'probe'],
];
const BY_DRAW: Readonly<Record<string, PromptKind>> = {
  minimal: 'minimal',
  split: 'split',
  ballot: 'ballot',
  review: 'review',
  worker: 'worker',
  test: 'test',
  probe: 'probe',
};
const BY_PHRASE: readonly (readonly [RegExp, PromptKind])[] = [
  [/Is this task minimal/i, 'minimal'],
  [/Split this task/i, 'split'],
  [/"choice"/, 'ballot'],
  [/"verdict"/, 'review'],
  [/"files"\s*:/, 'worker'],
  [/a line "File: <relative path>"/, 'worker'],
  [/write one acceptance test/, 'test'],
  [/write one probe/, 'probe'],
];

/**
 * The kind of a request: by its JSON schema's properties first (what the answer must be), then by
 * the role in its draw id (`n-0:worker:1001`), then by stable phrases of the prompt. Throws
 * {@link UnrecognisedPromptError} when none of them places it, or when they disagree.
 */
export function promptKind(request: Pick<GenerateRequest, 'prompt' | 'draw' | 'json'>): PromptKind {
  const properties = schemaProperties(request.json?.schema);
  const bySchema = BY_PROPERTY.find(([p]) => p in properties)?.[1];
  const role = /:([a-z-]+):\d+$/.exec(request.draw ?? '')?.[1];
  const byDraw = role === undefined ? undefined : BY_DRAW[role];
  if (bySchema !== undefined && byDraw !== undefined && bySchema !== byDraw)
    throw new UnrecognisedPromptError(
      `the schema says ${bySchema} but the draw says ${byDraw}`,
      request,
    );
  const kind = bySchema ?? byDraw ?? BY_PHRASE.find(([phrase]) => phrase.test(request.prompt))?.[1];
  if (kind === undefined) throw new UnrecognisedPromptError('unrecognised prompt kind', request);
  return kind;
}

/** What a prompt says about the node it is for (from the node description every prompt opens with). */
export interface NodeFacts {
  readonly idea: ProductIdea;
  readonly title: string | undefined;
  /** The files the node may touch; empty for the whole project. */
  readonly files: readonly string[];
  /** The prompt says which files (a "Files it may touch:" line): without one, the node is the root or unknown. */
  readonly filesSaid: boolean;
}

/** Reads the idea, task title and files of a prompt; throws when the idea is none of `ideas`. */
export function nodeFacts(
  request: Pick<GenerateRequest, 'prompt' | 'draw' | 'json'>,
  ideas: readonly ProductIdea[],
): NodeFacts {
  const text = request.prompt;
  const idea = ideas.find((i) => text.includes(i.idea));
  if (idea === undefined)
    throw new UnrecognisedPromptError('the prompt names none of the built-in ideas', request);
  const title = /^Task: (.*)$/m.exec(text)?.[1]?.trim();
  const filesLine = /^Files it may touch: (.*)$/m.exec(text)?.[1];
  const files = (filesLine ?? '')
    .split(',')
    .map((f) => f.trim())
    .filter((f) => f !== '');
  return { idea, title, files, filesSaid: filesLine !== undefined };
}

/** The `=== Option X ===` sections of a ballot prompt, by label. */
export function ballotOptions(prompt: string): { label: string; content: string }[] {
  const parts = prompt.split(/^=== Option ([A-Z]) ===$/m);
  const options: { label: string; content: string }[] = [];
  for (let i = 1; i + 1 < parts.length; i += 2)
    options.push({ label: parts[i] as string, content: parts[i + 1] as string });
  return options;
}

/** Whether a text is a code change (a diff) rather than a decomposition. */
export function looksLikeDiff(text: string): boolean {
  return /^(diff --git |@@ |\+\+\+ |--- a\/)/m.test(text);
}

/** The lines a diff adds, trimmed, without blank ones. */
export function addedLines(diff: string): string[] {
  return diff
    .split('\n')
    .filter((l) => l.startsWith('+') && !l.startsWith('+++'))
    .map((l) => l.slice(1).trim())
    .filter((l) => l !== '');
}

/** The file groups of a rendered decomposition (its `files:` lines). */
export function splitFileGroups(rendered: string): string[][] {
  return [...rendered.matchAll(/^\s*files: (.*)$/gm)].map((m) =>
    (m[1] ?? '').split(',').map((f) => f.trim()),
  );
}
