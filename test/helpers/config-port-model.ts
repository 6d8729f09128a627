import type {
  GenerateRequest,
  GenerateResult,
  LanguageModel,
} from '../../src/ports/language-model.js';

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
    return Promise.resolve({ text: this.#answer(request.prompt), finishReason: 'stop' });
  }

  #answer(p: string): string {
    const service = p.includes('Task: Set up the service');
    if (p.includes('Is this task minimal'))
      return JSON.stringify({
        minimal: !p.includes('Decomposition depth: 0') && !service,
        reason: 'x',
      });
    if (p.includes('Split this task'))
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
    if (p.includes('most likely cause of these failures')) {
      this.blames += 1;
      const options = [
        ...p.matchAll(/=== Option ([A-Z]) ===\n([\s\S]*?)(?==== Option |\nReply as JSON|$)/g),
      ];
      const string = options.find((o) => o[2]?.includes('"port": "8080"'));
      return JSON.stringify({ choice: string?.[1] ?? 'A', reason: 'the port is a string' });
    }
    if (p.includes('write one acceptance test'))
      return JSON.stringify({ test: null, reason: 'the planned check decides' });
    if (p.includes('write one probe'))
      return JSON.stringify({ probe: null, reason: 'nothing to probe' });
    if (p.includes('"choice"')) return JSON.stringify({ choice: 'A', reason: 'x' });
    if (p.includes('A proposal for this task'))
      return JSON.stringify({ verdict: 'ok', confidence: 0.9, reason: 'fine' });
    if (p.includes('Reply as JSON {"files"')) {
      const file = p.includes('Task: Write the configuration')
        ? { path: 'config.json', content: config(this.blames > 0 ? 8080 : '8080') }
        : p.includes('Task: Write the README')
          ? { path: 'README.md', content: '# Service\n\nStart it with `node server.js`.\n' }
          : { path: 'server.js', content: SERVER };
      return JSON.stringify({ files: [file], summary: `Write ${file.path}` });
    }
    throw new Error(`unexpected prompt: ${p.slice(0, 200)}`);
  }
}
