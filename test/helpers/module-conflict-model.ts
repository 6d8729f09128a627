import type {
  GenerateRequest,
  GenerateResult,
  LanguageModel,
} from '../../src/ports/language-model.js';
import { atRoot, ballotOptions, isIntegration, isTask, promptRole } from './prompts.js';

/** The module both subtasks write: an add/add conflict when the second is merged. */
export const MODULE = 'src/index.mjs';

/** The first subtask's check: the module imports as an ES module and greet works. */
export const GREET_CHECK = `node --input-type=module -e "const m = await import('./${MODULE}'); if (m.greet('x') !== 'hello x') process.exit(1)"`;

const GREET = "export function greet(name) {\n  return 'hello ' + name;\n}\n";
/** The misconception: CommonJS exports in an ES module file. Its own check only greps. */
const SHOUT_CJS =
  "const { format } = require('node:util');\nfunction shout(text) {\n  return format('%s', text).toUpperCase();\n}\nmodule.exports = { shout };\n";
const SHOUT_ESM = 'export function shout(text) {\n  return text.toUpperCase();\n}\n';

/**
 * A scripted model for issue #36's upstream cause shown only when an integration fails: two
 * subtasks both write `src/index.mjs`; the second writes CommonJS exports (the same every time, so
 * it wins its vote; its own check only greps for `shout`) until a blame ballot has named it. The
 * merge conflicts; every integration keeps both sides as written, so each fails the first
 * subtask's check (`require is not defined in ES module scope`). Judges of a blame ballot pick the
 * option that shows `require(`. Answers every prompt MAKER sends in such a run.
 */
export class ModuleConflictModel implements LanguageModel {
  readonly id = 'module-conflict-fake';
  /** Blame ballots answered. */
  blames = 0;
  /** Integration candidates written. */
  integrations = 0;

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
            title: 'Add greet',
            description: `${MODULE}, an ES module, exports greet(name) returning 'hello ' + name.`,
            acceptance: ["greet('x') is 'hello x'"],
            files: [MODULE],
            dependsOn: [],
            check: GREET_CHECK,
          },
          {
            title: 'Add shout',
            description: `${MODULE}, an ES module, exports shout(text) returning text in capitals.`,
            acceptance: ["shout('a') is 'A'"],
            files: [MODULE],
            dependsOn: [],
            check: `grep -q shout ${MODULE}`,
          },
        ],
        ambiguity: null,
      });
    if (role === 'blame') {
      this.blames += 1;
      const options = ballotOptions(p);
      const cjs = options.find((o) => o.content.includes('require('));
      return JSON.stringify({ choice: cjs?.label ?? 'A', reason: 'CommonJS in an ES module' });
    }
    if (role === 'test') return JSON.stringify({ test: null, reason: 'the planned check decides' });
    if (role === 'probe') return JSON.stringify({ probe: null, reason: 'nothing to probe' });
    if (role === 'ballot') return JSON.stringify({ choice: 'A', reason: 'x' });
    if (role === 'review')
      return JSON.stringify({ verdict: 'ok', confidence: 0.9, reason: 'fine' });
    if (role === 'worker') {
      let content: string;
      if (isIntegration(p)) {
        // Both sides kept as written: the CommonJS side's exports stay if it wrote them.
        this.integrations += 1;
        content = `${GREET}\n${p.includes("require('node:util')") ? SHOUT_CJS : SHOUT_ESM}`;
      } else if (isTask(p, 'Add greet')) content = GREET;
      else content = this.blames > 0 ? SHOUT_ESM : SHOUT_CJS;
      return JSON.stringify({ files: [{ path: MODULE, content }], summary: `Write ${MODULE}` });
    }
    throw new Error(`unexpected prompt: ${p.slice(0, 200)}`);
  }
}
