import type {
  GenerateRequest,
  GenerateResult,
  LanguageModel,
} from '../../src/ports/language-model.js';
import { atRoot, ballotOptions, isTask, promptRole } from './prompts.js';

/** The person's check of the whole product: it imports the module as an ES module. */
export const ESM_CHECK = `node --input-type=module -e "import { greet } from './src/greet.js'; if (greet('x') !== 'hello x') process.exit(1)"`;

/** The acceptance test the test role writes for the greeting module (CommonJS, so it runs under any manifest). */
export const GREET_TEST = {
  path: 'test/greet.test.cjs',
  command: 'node --test test/greet.test.cjs',
  content: `const { test } = require('node:test');
const assert = require('node:assert/strict');
const { readFileSync } = require('node:fs');

test('greet is exported', () => {
  assert.match(readFileSync('src/greet.js', 'utf8'), /export function greet/);
});
`,
};

const manifest = (type: string, version = '1.0.0') =>
  `${JSON.stringify({ name: 'greet', version, type, main: 'src/greet.js' }, null, 2)}\n`;

/**
 * A scripted model for issue #36's upstream cause shown only by the parent's check: the manifest
 * subtask writes a CommonJS `package.json` (a plausible wrong answer, the same every time, so it
 * wins its vote) until a blame ballot has named it; the greeting module's ESM `export` passes its
 * own check (which reads the file) and its acceptance test; only the person's check of the whole
 * product (an ES module import) fails. Judges of a blame ballot pick the manifest's option.
 * Answers every prompt MAKER sends in such a run (an unknown one throws).
 */
export class EsmManifestModel implements LanguageModel {
  readonly id = 'esm-manifest-fake';
  /** Blame ballots answered. */
  blames = 0;
  /**
   * With `stubborn`, the manifest subtask stays CommonJS after a blame too (a new version each
   * time, so it is not the answer a reopening excludes): reopening does not mend the failure.
   */
  constructor(readonly options: { readonly stubborn?: boolean } = {}) {}

  generate(request: GenerateRequest): Promise<GenerateResult> {
    return Promise.resolve({ text: this.#answer(request), finishReason: 'stop' });
  }

  #answer(request: GenerateRequest): string {
    const p = request.prompt;
    const role = promptRole(request);
    if (role === 'minimal') return JSON.stringify({ minimal: !atRoot(p), reason: 'x' });
    if (role === 'split')
      return JSON.stringify({
        subtasks: [
          {
            title: 'Set up the package',
            description: 'package.json for the ES module package greet.',
            acceptance: ['package.json parses'],
            files: ['package.json'],
            dependsOn: [],
            check: `node -e "JSON.parse(require('fs').readFileSync('package.json', 'utf8'))"`,
          },
          {
            title: 'Write the greeting module',
            description: "src/greet.js exports greet(name), returning 'hello ' + name.",
            acceptance: ["greet('x') is 'hello x'"],
            files: ['src/greet.js', 'test/'],
            dependsOn: [0],
            check: `node -e "require('fs').readFileSync('src/greet.js', 'utf8').includes('export function greet') || process.exit(1)"`,
          },
        ],
        ambiguity: null,
      });
    if (role === 'blame') {
      this.blames += 1;
      const options = ballotOptions(p);
      const manifestOption = options.find((o) => o.content.includes('package.json'));
      return JSON.stringify({ choice: manifestOption?.label ?? 'A', reason: 'the manifest' });
    }
    if (role === 'test')
      return JSON.stringify(
        isTask(p, 'Write the greeting module')
          ? { test: GREET_TEST, reason: 'greet is exported' }
          : { test: null, reason: 'a manifest' },
      );
    // The probe role (votes on behaviour): nothing to probe, candidates vote by their text.
    if (role === 'probe') return JSON.stringify({ probe: null, reason: 'nothing to probe' });
    if (role === 'ballot') return JSON.stringify({ choice: 'A', reason: 'x' });
    if (role === 'review')
      return JSON.stringify({ verdict: 'ok', confidence: 0.9, reason: 'fine' });
    if (role === 'worker') {
      const file = isTask(p, 'Set up the package')
        ? {
            path: 'package.json',
            content:
              this.options.stubborn === true
                ? manifest('commonjs', `1.0.${this.blames}`)
                : manifest(this.blames > 0 ? 'module' : 'commonjs'),
          }
        : {
            path: 'src/greet.js',
            content: "export function greet(name) {\n  return 'hello ' + name;\n}\n",
          };
      return JSON.stringify({ files: [file], summary: `Add ${file.path}` });
    }
    throw new Error(`unexpected prompt: ${p.slice(0, 200)}`);
  }
}
