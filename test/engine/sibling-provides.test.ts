import { describe, expect, it } from 'vitest';
import { openWorkspace } from '../../src/app/wiring/wiring.js';
import type { FakeGeminiRequest } from '../../src/offline/fake-gemini.js';
import { geminiConfig, geminiEngine, useFakeGemini } from '../helpers/gemini-engine.js';
import { useTempDirs } from '../helpers/tmp.js';
import { isTask, promptRole } from '../helpers/prompts.js';
import { workspaceSettings } from '../helpers/settings.js';

const tempDir = useTempDirs();
const fakeGemini = useFakeGemini();

/** Two wordings of one promise: the split samples alternate between them. */
const PARSER_PROVIDES = [
  'parse(text) → string[][], exported by src/parse.js',
  'src/parse.js exports parse(text: string): string[][]',
];
const CLI_PROVIDES = 'the tool command: node src/cli.js <file> prints the rows as JSON';

/** A planner whose split samples differ only in how they word what the parser provides. */
function scripted() {
  let splits = 0;
  return (request: FakeGeminiRequest) => {
    const p = request.prompt;
    const role = promptRole(request);
    if (role === 'minimal')
      return { text: JSON.stringify({ minimal: isTask(p, 'Write the'), reason: 'x' }) };
    if (role === 'split') {
      splits += 1;
      return {
        text: JSON.stringify({
          subtasks: [
            {
              title: 'Write the parser',
              description: 'src/parse.js parses CSV.',
              acceptance: ['parse("a,b") is [["a","b"]]'],
              files: ['src/parse.js'],
              provides: [PARSER_PROVIDES[splits % 2] as string],
              dependsOn: [],
            },
            {
              title: 'Write the CLI',
              description: 'src/cli.js prints a CSV file as JSON.',
              acceptance: ['it prints JSON'],
              files: ['src/cli.js'],
              provides: [CLI_PROVIDES],
              dependsOn: [0],
            },
          ],
          ambiguity: null,
        }),
      };
    }
    if (role === 'ballot' || role === 'blame')
      return { text: JSON.stringify({ choice: 'A', reason: 'x' }) };
    if (role === 'review')
      return { text: JSON.stringify({ verdict: 'ok', confidence: 0.9, reason: 'fine' }) };
    const path = isTask(p, 'Write the parser') ? 'src/parse.js' : 'src/cli.js';
    return {
      text: JSON.stringify({ files: [{ path, content: `// ${path}\n` }], summary: path }),
    };
  };
}

describe('what subtasks promise each other', () => {
  it("each worker's prompt lists its siblings' titles and what they provide; wordings of provides do not split the vote", async () => {
    const fake = await fakeGemini(scripted());
    const dir = await tempDir();
    const engine = geminiEngine(dir, await openWorkspace(dir, true, workspaceSettings()), fake);
    const runId = await engine.create('a CSV to JSON tool', geminiConfig);
    const outcome = await engine.run(runId);
    expect(outcome.error).toBeUndefined();
    expect(outcome.status).toBe('done');
    const run = await engine.getRun(runId);

    // The split samples differed only in the wording of what the parser provides: one class,
    // settled by agreement, no ballot.
    const split = run.nodes['root']?.split;
    // (The scripted planner alternates the two wordings: two samples or more saw both.)
    expect(fake.requests.filter((r) => promptRole(r) === 'split').length).toBeGreaterThan(1);
    expect(split?.ballots).toEqual([]);
    expect(new Set(split?.draws.filter((d) => d.status === 'valid').map((d) => d.key)).size).toBe(
      1,
    );
    const parser = run.nodes['0'];
    expect(parser?.provides?.length).toBe(1);
    const promised = parser?.provides?.[0] ?? '';
    expect(PARSER_PROVIDES).toContain(promised);

    const workerPrompt = (title: string) =>
      fake.requests.find((r) => isTask(r.prompt, title) && promptRole(r) === 'worker')?.prompt ??
      '';
    const cli = workerPrompt('Write the CLI');
    expect(cli).toContain(
      `Other subtasks of the same plan, done by others (use what they promise, do not do their work):\n- Write the parser: provides ${promised}`,
    );
    expect(workerPrompt('Write the parser')).toContain(`- Write the CLI: provides ${CLI_PROVIDES}`);
    // The planner was asked for it.
    const asked = fake.requests.find((r) => promptRole(r) === 'split')?.prompt ?? '';
    expect(asked).toMatch(/"provides" \(what it promises the other subtasks/);
  });
});
