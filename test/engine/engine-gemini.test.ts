import { execFileSync } from 'node:child_process';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { summarise } from '../../src/engine/summary.js';
import { afterEach, describe, expect, it } from 'vitest';
import { GeminiModel } from '../../src/adapters/gemini/gemini-model.js';
import { makerStateFile } from '../../src/adapters/state/state-file.js';
import { LlmPlanner } from '../../src/engine/llm-planner.js';
import { LlmWorker } from '../../src/engine/llm-worker.js';
import { MakerEngine } from '../../src/engine/maker-engine.js';
import { openWorkspace } from '../../src/surfaces/wiring.js';
import {
  startFakeGemini,
  type FakeGemini,
  type FakeGeminiReply,
  type FakeGeminiRequest,
} from '../../src/testing/fake-gemini.js';
import { baseConfig } from '../helpers/engine.js';
import { useTempDirs } from '../helpers/tmp.js';

const tempDir = useTempDirs();
let fake: FakeGemini | undefined;
afterEach(async () => {
  await fake?.close();
  fake = undefined;
});
const git = (dir: string, ...args: string[]) =>
  execFileSync('git', args, { cwd: dir, encoding: 'utf8' }).trim();

/** A scripted model playing every MAKER role, recognised by the prompt it gets. */
function projectModel(request: FakeGeminiRequest, index: number): FakeGeminiReply {
  const p = request.prompt;
  if (p.includes('Is this task minimal'))
    return {
      text: JSON.stringify({ minimal: !p.includes('Decomposition depth: 0'), reason: 'x' }),
    };
  if (p.includes('Split this task'))
    return {
      text: JSON.stringify({
        subtasks: [
          {
            title: 'Write the converter',
            description: 'A Python script that converts CSV to JSON.',
            acceptance: ['converts'],
            files: ['src/convert.py'],
            dependsOn: [],
          },
          {
            title: 'Write the README',
            description: 'Explain usage.',
            acceptance: ['documents usage'],
            files: ['README.md'],
            dependsOn: [0],
          },
        ],
        ambiguity: null,
      }),
    };
  if (p.includes('"choice"')) return { text: JSON.stringify({ choice: 'A', reason: 'x' }) };
  if (p.includes('A proposal for this task'))
    return { text: JSON.stringify({ verdict: 'ok', confidence: 0.9, reason: 'fine' }) };
  if (p.includes('Current files in scope')) {
    // Every fourth worker answer is malformed or cut off: those are red-flagged and replaced.
    if (index % 4 === 3)
      return {
        text: '{"files": [{"path": "src/convert.py", "content": "impo',
        finishReason: 'MAX_TOKENS',
      };
    const converter = p.includes('Task: Write the converter');
    return {
      text: JSON.stringify({
        files: [
          converter
            ? {
                path: 'src/convert.py',
                content:
                  'import csv, json, sys\nprint(json.dumps(list(csv.DictReader(sys.stdin))))\n',
              }
            : { path: 'README.md', content: '# csv2json\n\n`python src/convert.py < in.csv`\n' },
        ],
        summary: converter ? 'Add the converter' : 'Document usage',
      }),
    };
  }
  return { status: 400, message: `unexpected prompt: ${p.slice(0, 80)}` };
}

describe('MakerEngine over Gemini (a local fake speaking generateContent)', () => {
  it('plans, writes, votes and lands through the real @google/genai client', async () => {
    fake = await startFakeGemini(projectModel);
    const dir = await tempDir();
    const workspace = await openWorkspace(dir, true);
    const apiKey = ['AIza', 'K'.repeat(35)].join('');
    const model = new GeminiModel({
      model: 'gemini-2.5-flash',
      apiKey,
      baseUrl: fake.baseUrl,
      attempts: 1,
    });
    const engine = new MakerEngine({
      workspace,
      roles: { planner: new LlmPlanner(model), worker: new LlmWorker(model, workspace) },
      store: makerStateFile(dir),
    });
    const runId = await engine.create('a CLI that converts CSV to JSON', {
      ...baseConfig,
      worker: 'gemini',
      planner: 'gemini',
      model: 'gemini-2.5-flash',
    });
    const outcome = await engine.run(runId);
    expect(outcome.error).toBeUndefined();
    expect(outcome.status).toBe('done');
    expect(git(dir, 'show', 'main:src/convert.py')).toContain('csv.DictReader');
    expect(git(dir, 'show', 'main:README.md')).toContain('csv2json');
    const run = await engine.getRun(runId);
    const flags = Object.values(run.nodes).flatMap((n) =>
      (n.leaf?.draws ?? []).flatMap((d) => d.flags.map((f) => f.rule)),
    );
    expect(flags).toContain('worker-failed');
    // Costs are counted; the key reached the API and nowhere else.
    expect(fake.requests.every((r) => r.apiKey === apiKey)).toBe(true);
    expect(await readFile(join(dir, 'maker-state.json'), 'utf8')).not.toContain(apiKey);
    const summary = summarise(run);
    expect(summary.modelCalls).toBeGreaterThan(5);
    expect(summary.tokens).toBeGreaterThan(0);
    expect(summary.estimatedCostUsd).toBeGreaterThan(0);
    expect(fake.requests.every((r) => r.responseMimeType === 'application/json')).toBe(true);
    expect(
      fake.requests.some((r) => r.temperature === 0) &&
        fake.requests.some((r) => r.temperature === 0.1),
    ).toBe(true);
    // The README leaf depends on the converter: it starts from the head that contains it.
    expect(run.nodes['1']?.baseCommit).toBe(run.nodes['root']?.mergeHeads[1]);
    expect(git(dir, 'log', '--format=%B', '-1', `maker/${runId}/n-0`)).toMatch(
      /Maker-Votes: 3 of 3 valid/,
    );
  });
});
