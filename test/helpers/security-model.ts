import type { FakeGeminiReply, FakeGeminiRequest } from '../../src/offline/fake-gemini.js';
import { atRoot, ballotOptions, isTask, promptRole } from './prompts.js';

/** One subtask of the scripted plan, and what its worker writes. */
export interface ScriptedSubtask {
  readonly title: string;
  readonly files: readonly string[];
  readonly check?: string;
  /** The files the worker writes for its `n`th answer to this subtask. */
  readonly write: (n: number) => readonly { path: string; content: string }[];
  /** The summary the worker gives (one line, the prompt asks; a hostile model gives more). */
  readonly summary: string;
}

/**
 * A scripted model (behind the fake Gemini server) that plays every MAKER role for a plan of the
 * given subtasks: the root is split into them, each is minimal, the worker writes what the subtask
 * says, judges pick the preferred option (else A), reviews find nothing. Every prompt it receives is kept in `prompts`.
 */
export function scriptedModel(
  subtasks: readonly ScriptedSubtask[],
  options: {
    /** Judges pick the option whose text holds this (else A): ballots then agree. */
    readonly prefer?: string;
  } = {},
): {
  readonly respond: (request: FakeGeminiRequest) => FakeGeminiReply;
  readonly prompts: string[];
} {
  const prompts: string[] = [];
  const answers = new Map<string, number>();
  const respond = (request: FakeGeminiRequest): FakeGeminiReply => {
    const p = request.prompt;
    const role = promptRole(request);
    prompts.push(`${request.system ?? ''}\n${p}`);
    // The acceptance-test role (checks on): no behaviour to test here, the planned checks decide.
    // The probe role (checks on): nothing to probe here, candidates vote by their text.
    if (role === 'probe')
      return { text: JSON.stringify({ probe: null, reason: 'nothing to probe' }) };
    if (role === 'test')
      return { text: JSON.stringify({ test: null, reason: 'no behaviour to test' }) };
    if (role === 'minimal')
      return {
        text: JSON.stringify({ minimal: !atRoot(p), reason: 'x' }),
      };
    if (role === 'split')
      return {
        text: JSON.stringify({
          subtasks: subtasks.map((s) => ({
            title: s.title,
            description: `Do this: ${s.title}.`,
            acceptance: ['it is done'],
            files: s.files,
            dependsOn: [],
            ...(s.check === undefined ? {} : { check: s.check }),
          })),
          ambiguity: null,
        }),
      };
    if (role === 'ballot' || role === 'blame') {
      const preferred = ballotOptions(p).find(
        (o) => options.prefer !== undefined && o.content.includes(options.prefer),
      );
      return { text: JSON.stringify({ choice: preferred?.label ?? 'A', reason: 'x' }) };
    }
    if (role === 'review')
      return { text: JSON.stringify({ verdict: 'ok', confidence: 0.9, reason: 'fine' }) };
    if (role === 'worker') {
      const subtask = subtasks.find((s) => isTask(p, s.title.split('\n')[0] ?? ''));
      if (subtask === undefined) return { status: 400, message: 'no such subtask' };
      const n = answers.get(subtask.title) ?? 0;
      answers.set(subtask.title, n + 1);
      return { text: JSON.stringify({ files: subtask.write(n), summary: subtask.summary }) };
    }
    return { status: 400, message: `unexpected prompt: ${p.slice(0, 80)}` };
  };
  return { respond, prompts };
}
