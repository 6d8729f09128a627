import type {
  GenerateRequest,
  GenerateResult,
  LanguageModel,
} from '../../src/ports/language-model.js';
import { ballotOptions, promptRole, touchable } from './prompts.js';

/** What the scripted model answers, by role; `slot` is the draw's slot within its vote. */
export interface Script {
  split?: (slot: number) => unknown;
  /** The file the worker writes; null: an answer that is not JSON (red-flagged). */
  code?: (node: string, slot: number) => string | null;
  /** The label a judge picks among the options shown. */
  judge?: (options: readonly { label: string; content: string }[]) => string;
}

/**
 * An in-process model that plays every role the way real samples differ: plans whose prose
 * varies, code whose layout varies. It records every request, and what it saw of ballots.
 */
export class ScriptedModel implements LanguageModel {
  readonly id: string;
  readonly requests: GenerateRequest[] = [];
  readonly ballots: string[] = [];
  readonly #script: Script;
  constructor(id: string, script: Script) {
    this.id = id;
    this.#script = script;
  }

  generate(request: GenerateRequest): Promise<GenerateResult> {
    this.requests.push(request);
    const p = request.prompt;
    const slot = Number((request.draw ?? '').split(':').at(-1) ?? '0') % 1000;
    const node = (request.draw ?? '').split(':')[0] ?? '';
    const reply = (value: unknown): Promise<GenerateResult> =>
      Promise.resolve({
        text: typeof value === 'string' ? value : JSON.stringify(value),
        finishReason: 'stop',
        outputTokens: 50,
      });
    const role = promptRole(request);
    if (role === 'minimal') return reply({ minimal: node !== 'root', reason: 'x' });
    if (role === 'split')
      return reply(
        this.#script.split?.(slot) ?? {
          subtasks: [
            subtask('Write the sum', `Adds numbers. (${slot})`, 'src/sum.js'),
            subtask('Write the mean', 'Averages numbers.', 'src/mean.js'),
          ],
          ambiguity: null,
        },
      );
    if (role === 'ballot' || role === 'blame') {
      this.ballots.push(p);
      return reply({ choice: this.#script.judge?.(ballotOptions(p)) ?? 'A', reason: 'judged' });
    }
    if (role === 'review') return reply({ verdict: 'ok', confidence: 0.9, reason: 'fine' });
    if (role === 'worker') {
      const path = touchable(p)[0] ?? 'src/out.js';
      const content = this.#script.code === undefined ? SUMS.loop : this.#script.code(node, slot);
      if (content === null) return reply('I could not finish this.');
      return reply({
        files: [{ path, content }],
        summary: 'write it',
      });
    }
    return Promise.reject(new Error(`unexpected prompt: ${p.slice(0, 80)}`));
  }
}

export function subtask(
  title: string,
  description: string,
  file: string,
  dependsOn: number[] = [],
) {
  return { title, description, acceptance: ['it works'], files: [file], dependsOn };
}

/** Three right programs that differ in what they are, and layouts of the first. */
export const SUMS = {
  loop: 'export function sum(xs) {\n  let t = 0;\n  for (const x of xs) t += x;\n  return t;\n}\n',
  reduce: 'export function sum(xs) {\n  return xs.reduce((a, b) => a + b, 0);\n}\n',
  recursive:
    'export function sum(xs) {\n  return xs.length === 0 ? 0 : xs[0] + sum(xs.slice(1));\n}\n',
  loopCommented:
    '// Sums the numbers.\nexport function sum(xs)\n{\n    let t = 0; // total\n    for (const x of xs) t += x;\n\n    return t;\n}',
};
