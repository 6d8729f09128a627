import type {
  GenerateRequest,
  GenerateResult,
  LanguageModel,
} from '../../src/ports/language-model.js';
import { atRoot, ballotOptions, isTask, promptRole } from './prompts.js';

/** The server's check: it reads the configuration, if any, and refuses a port that is not a number. */
export const SERVER_CHECK = 'node server.js';

const SERVER = `const fs = require('fs');
const port = fs.existsSync('config.json')
  ? JSON.parse(fs.readFileSync('config.json', 'utf8')).port
  : 8080;
if (typeof port !== 'number') throw new TypeError('port must be a number, got ' + typeof port);
console.log('listening on', port);
`;

const config = (port: unknown) => `${JSON.stringify({ port }, null, 2)}\n`;

/**
 * A scripted model for issue #36's upstream cause in a three-level tree, shown only by a merge:
 * the root splits into "Set up the service" (itself split into the configuration and a README)
 * and "Write the server", which builds on nothing. The configuration leaf, two levels down, writes
 * the port as a string (a plausible wrong answer, the same every time) until a blame ballot has
 * named it; its own check only parses the JSON. The server's check passes on its own result (no
 * configuration there) and fails once the root merges both. Judges of a blame ballot pick the
 * option showing the string port. Answers every prompt MAKER sends in such a run.
 */
export class ConfigPortModel implements LanguageModel {
  readonly id = 'config-port-fake';
  /** Blame ballots answered. */
  blames = 0;

  generate(request: GenerateRequest): Promise<GenerateResult> {
    return Promise.resolve({ text: this.#answer(request), finishReason: 'stop' });
  }

  #answer(request: GenerateRequest): string {
    const p = request.prompt;
    const role = promptRole(request);
    const service = isTask(p, 'Set up the service');
    if (role === 'minimal')
      return JSON.stringify({
        minimal: !atRoot(p) && !service,
        reason: 'x',
      });
    if (role === 'split')
      return JSON.stringify({
        subtasks: service
          ? [
              {
                title: 'Write the configuration',
                description: 'config.json holds the service settings: port, the number 8080.',
                acceptance: ['config.json has "port": 8080, a number'],
                files: ['config.json'],
                dependsOn: [],
                check: `node -e "JSON.parse(require('fs').readFileSync('config.json', 'utf8'))"`,
              },
              {
                title: 'Write the README',
                description: 'README.md says how to start the service.',
                acceptance: ['README.md says to run node server.js'],
                files: ['README.md'],
                dependsOn: [],
                check: 'test -s README.md',
              },
            ]
          : [
              {
                title: 'Set up the service',
                description: 'The configuration (config.json) and a README.',
                acceptance: ['config.json and README.md exist'],
                files: ['config.json', 'README.md'],
                dependsOn: [],
                check: 'test -s config.json',
              },
              {
                title: 'Write the server',
                description: 'server.js reads its port from config.json when there is one.',
                acceptance: ['node server.js prints the port it listens on'],
                files: ['server.js'],
                dependsOn: [],
                check: SERVER_CHECK,
              },
            ],
        ambiguity: null,
      });
    if (role === 'blame') {
      this.blames += 1;
      const options = ballotOptions(p);
      const string = options.find((o) => o.content.includes('"port": "8080"'));
      return JSON.stringify({ choice: string?.label ?? 'A', reason: 'the port is a string' });
    }
    if (role === 'test') return JSON.stringify({ test: null, reason: 'the planned check decides' });
    if (role === 'probe') return JSON.stringify({ probe: null, reason: 'nothing to probe' });
    if (role === 'ballot') return JSON.stringify({ choice: 'A', reason: 'x' });
    if (role === 'review')
      return JSON.stringify({ verdict: 'ok', confidence: 0.9, reason: 'fine' });
    if (role === 'worker') {
      const file = isTask(p, 'Write the configuration')
        ? { path: 'config.json', content: config(this.blames > 0 ? 8080 : '8080') }
        : isTask(p, 'Write the README')
          ? { path: 'README.md', content: '# Service\n\nStart it with `node server.js`.\n' }
          : { path: 'server.js', content: SERVER };
      return JSON.stringify({ files: [file], summary: `Write ${file.path}` });
    }
    throw new Error(`unexpected prompt: ${p.slice(0, 200)}`);
  }
}
