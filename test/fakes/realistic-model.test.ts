import { execFileSync } from 'node:child_process';
import { afterEach, describe, expect, it } from 'vitest';
import { MemoryWorkspace } from '../../src/adapters/memory/memory-workspace.js';
import { summarise } from '../../src/core/view/summary.js';
import { LlmPlanner } from '../../src/engine/models/llm-planner.js';
import { LlmWorker, type EditFormat } from '../../src/engine/models/llm-worker.js';
import { JSON_SCHEMAS } from '../../src/engine/vote/parse.js';
import type { GenerateRequest } from '../../src/ports/language-model.js';
import type { NodeContext } from '../../src/ports/planner.js';
import { engineFor, openWorkspace, runConfig } from '../../src/app/wiring/wiring.js';
import { WORKERS } from '../../src/app/workers/index.js';
import { startFakeGemini, type FakeGemini } from '../../src/offline/fake-gemini.js';
import { textStats } from '../../src/offline/product/ideas/text-stats.js';
import { promptKind, UnrecognisedPromptError } from '../../src/offline/product/prompt-kinds.js';
import { RealisticModel, type RealisticKnobs } from '../../src/offline/product/realistic-model.js';
import { realisticResponder } from '../../src/offline/product/responder.js';
import { useTempDirs } from '../helpers/tmp.js';
import { readSettings } from '../../src/app/settings.js';
import { MakerError } from '../../src/core/errors.js';
import { workspaceSettings } from '../helpers/settings.js';

const tempDir = useTempDirs();
let fake: FakeGemini | undefined;
afterEach(async () => {
  await fake?.close();
  fake = undefined;
});

const knobs: RealisticKnobs = { p: 0.8, slip: 0.1, judgeAccuracy: 0.9, seed: 3 };
const leaf = textStats.leaves[0];
const context = (files: readonly string[], nodeId = '0'): NodeContext => ({
  runId: 'r1',
  nodeId,
  idea: textStats.idea,
  depth: 1,
  maxDepth: 3,
  task: {
    title: leaf?.titles[0] ?? '',
    description: leaf?.descriptions[0] ?? '',
    acceptance: [],
    files: [...files],
    dependsOn: [],
  },
  ancestors: [textStats.idea],
  clarifications: [],
  repository: (budget) =>
    Promise.resolve({ text: 'The repository is empty.', chars: 24, budget, omitted: [] }),
});
const leafFiles = leaf?.files.map((f) => f.path) ?? [];
/** The root as the engine makes it: titled with the idea, no files. */
const root: NodeContext = {
  ...context([], 'root'),
  depth: 0,
  ancestors: [],
  task: {
    title: textStats.idea,
    description: textStats.idea,
    acceptance: [],
    files: [],
    dependsOn: [],
  },
};

/** Every request a model gets, answered by the realistic fake. */
function capturing(model: RealisticModel) {
  const requests: GenerateRequest[] = [];
  return {
    requests,
    model: {
      id: model.id,
      generate: (request: GenerateRequest) => {
        requests.push(request);
        return model.generate(request);
      },
    },
  };
}

interface Sample {
  readonly content: string;
  readonly right: boolean;
}

/** `n` worker samples of the stats leaf at `temperature`: its code file, and whether the fake made it right. */
async function workerSamples(
  model: RealisticModel,
  n: number,
  temperature = 1,
  editFormat: EditFormat = 'json',
) {
  const worker = new LlmWorker(
    { id: model.id, generate: (r) => model.generate({ ...r, temperature }) },
    new MemoryWorkspace(),
    { editFormat },
  );
  const samples: Sample[] = [];
  for (let slot = 0; slot < n; slot++) {
    const before = model.stats.code['correct'] ?? 0;
    const out = await worker.run(
      { context: context(leafFiles), baseCommit: '', branch: 'b' },
      1 + slot,
    );
    expect(out.ok, out.ok ? '' : out.reason).toBe(true);
    const edits = out.ok ? (out.edits ?? []) : [];
    samples.push({
      content: edits.find((e) => e.path === 'src/stats.mjs')?.content ?? '',
      right: (model.stats.code['correct'] ?? 0) > before,
    });
  }
  return samples;
}

/** A new-file diff of `content`, as a ballot or a review shows a candidate. */
const diffOf = (content: string) =>
  `diff --git a/src/stats.mjs b/src/stats.mjs\nnew file mode 100644\n--- /dev/null\n+++ b/src/stats.mjs\n@@ -0,0 +1 @@\n${content
    .split('\n')
    .map((l) => `+${l}`)
    .join('\n')}`;

describe('the realistic fake model', () => {
  it('knows a prompt by its schema, then its draw, then its phrases, and refuses what it cannot place', () => {
    const ask = (r: Partial<GenerateRequest>) => promptKind({ prompt: '', ...r });
    expect(ask({ json: { schema: JSON_SCHEMAS.split } })).toBe('split');
    expect(ask({ json: { schema: JSON_SCHEMAS.review }, draw: '0-1:review:1002' })).toBe('review');
    expect(ask({ draw: 'n-0:worker:1001' })).toBe('worker');
    expect(ask({ prompt: 'Is this task minimal: one small change?' })).toBe('minimal');
    expect(() => ask({ json: { schema: JSON_SCHEMAS.ballot }, draw: 'root:minimal:0' })).toThrow(
      /the schema says ballot but the draw says minimal/,
    );
    expect(() => ask({ prompt: 'Write a poem.', draw: 'x:poem:0' })).toThrow(
      UnrecognisedPromptError,
    );
    // A MakerError of the offline world: said as what it is, never "a bug in maker".
    expect(() => ask({ prompt: 'Write a poem.', draw: 'x:poem:0' })).toThrow(MakerError);
    expect(() => ask({ prompt: 'Write a poem.', draw: 'x:poem:0' })).toThrow(
      /draw x:poem:0.*Write a poem/,
    );
    const model = new RealisticModel(knobs);
    expect(() =>
      model.answer({
        temperature: 1,
        prompt: 'Overall idea: a web browser\nTask: x',
        json: { schema: JSON_SCHEMAS.minimal },
      }),
    ).toThrow(/names none of the built-in ideas/);
  });

  it('places a subtask whose prompt lists no files by the title it planned, and refuses one it did not plan', async () => {
    const model = new RealisticModel(knobs);
    const planner = new LlmPlanner(model);
    const unlisted = (title: string): NodeContext => ({
      ...context([]),
      task: { ...context([]).task, title },
    });
    await expect(
      planner.isMinimal(unlisted('Write the stats module'), { slot: 0, temperature: 1 }),
    ).rejects.toThrow(
      /whose files the prompt does not list and whose title \("Write the stats module"\) it never planned/,
    );
    const plan = JSON.parse(
      (await planner.proposeSplit(root, { slot: 0, temperature: 1 })).text,
    ) as {
      subtasks: { title: string }[];
    };
    const first = plan.subtasks[0]?.title ?? '';
    const answer = await planner.isMinimal(unlisted(first), { slot: 0, temperature: 1 });
    expect(JSON.parse(answer.text)).toHaveProperty('minimal');
  });

  it('answers the same per seed, and differently for another seed', async () => {
    const answers = async (seed: number) => {
      const planner = new LlmPlanner(new RealisticModel({ ...knobs, seed }));
      const out: string[] = [];
      for (let slot = 0; slot < 6; slot++)
        out.push((await planner.proposeSplit(root, { slot, temperature: 1 })).text);
      return out;
    };
    expect(await answers(3)).toEqual(await answers(3));
    expect(await answers(3)).not.toEqual(await answers(4));
  });

  it('writes code right about p of the time, in many forms; at temperature 0 it repeats itself', async () => {
    const model = new RealisticModel({ ...knobs, slip: 0 });
    const samples = await workerSamples(model, 60);
    const right = samples.filter((s) => s.right);
    expect(right.length / samples.length).toBeGreaterThan(0.6);
    expect(right.length / samples.length).toBeLessThan(0.95);
    expect(new Set(right.map((s) => s.content)).size).toBeGreaterThan(10);
    const greedy = await workerSamples(new RealisticModel(knobs), 4, 0);
    expect(new Set(greedy.map((s) => s.content)).size).toBe(1);
  });

  it('slips in JSON: over-escaped files or string literals, and "rest unchanged" omissions, at the slip rate', async () => {
    const model = new RealisticModel({ ...knobs, p: 1, slip: 0.5 });
    const samples = await workerSamples(model, 60);
    const escaped = samples.filter((s) => !s.content.includes('\n'));
    // The stats module splits on '\n': a doubled escape there still has real newlines.
    const literals = samples.filter((s) => s.content.includes('\\\\n'));
    const omitted = samples.filter((s) => s.content.includes('// ... rest unchanged'));
    expect(escaped.length).toBeGreaterThan(2);
    expect(literals.length).toBeGreaterThan(2);
    expect(omitted.length).toBeGreaterThan(6);
    expect(escaped.length + literals.length + omitted.length).toBeLessThan(45);
    expect(model.stats.code['slip:escaped-literals']).toBe(literals.length);
  });

  it('answers a fenced prompt in fenced blocks, the same samples as in JSON when it does not slip', async () => {
    const model = new RealisticModel({ ...knobs, slip: 0 });
    const { model: seen, requests } = capturing(model);
    const fenced = await workerSamples(model, 10, 1, 'fenced');
    const json = await workerSamples(new RealisticModel({ ...knobs, slip: 0 }), 10, 1, 'json');
    expect(fenced).toEqual(json);
    const worker = new LlmWorker(seen, new MemoryWorkspace(), { editFormat: 'fenced' });
    await worker.run({ context: context(leafFiles), baseCommit: '', branch: 'b' }, 1);
    expect(requests[0]?.json).toBeUndefined();
    expect(requests[0]?.prompt).toMatch(/^File: src\/example\.js$/m);
  });

  it('slips in fenced blocks: a missing File: line, a missing closing fence, each an unusable answer', async () => {
    for (const [rates, why] of [
      [{ missingPath: 1, missingClose: 0, omission: 0 }, /no "File: <path>" line before it/],
      [{ missingPath: 0, missingClose: 1, omission: 0 }, /closing fence is missing/],
    ] as const) {
      const model = new RealisticModel({ ...knobs, slipRates: rates });
      const worker = new LlmWorker(model, new MemoryWorkspace(), { editFormat: 'fenced' });
      const out = await worker.run({ context: context(leafFiles), baseCommit: '', branch: 'b' }, 1);
      expect(out.ok).toBe(false);
      expect(out.ok ? '' : out.reason).toMatch(/not in the fenced edit format/);
      expect(out.ok ? '' : out.reason).toMatch(why);
    }
  });

  it('fences a file holding ``` lines with three backticks at the fenceInside rate: an unusable answer', async () => {
    const readme = async (fenceInside: number) => {
      const model = new RealisticModel({ ...knobs, slipRates: { fenceInside } });
      const worker = new LlmWorker(model, new MemoryWorkspace(), { editFormat: 'fenced' });
      return worker.run({ context: context(['README.md']), baseCommit: '', branch: 'b' }, 1);
    };
    const careful = await readme(0);
    expect(careful.ok && careful.edits?.[0]?.content).toMatch(/```sh\nnpm test\n```\n$/);
    const slipped = await readme(1);
    expect(slipped.ok ? '' : slipped.reason).toMatch(
      /block for README\.md holds a line opening another fenced block.*needed a longer fence/,
    );
  });

  it('judges pick the right change at their set accuracy, and reviewers flag broken ones', async () => {
    for (const [accuracy, low, high] of [
      [0.9, 0.75, 1],
      [0.2, 0, 0.4],
    ] as const) {
      const model = new RealisticModel({ ...knobs, judgeAccuracy: accuracy, slip: 0 });
      const samples = await workerSamples(model, 30);
      const right = samples.find((s) => s.right);
      const wrong = samples.find((s) => !s.right);
      if (right === undefined || wrong === undefined)
        throw new Error('no right or no wrong sample');
      const { model: seen, requests } = capturing(model);
      const planner = new LlmPlanner(seen);
      let picked = 0;
      for (let slot = 0; slot < 40; slot++) {
        const order: Sample[] = slot % 2 === 0 ? [right, wrong] : [wrong, right];
        const out = await planner.castBallot(
          context(leafFiles),
          'Which change best completes the subtask?',
          order.map((s, i) => ({ label: String.fromCharCode(65 + i), content: diffOf(s.content) })),
          { slot, temperature: 1 },
        );
        const choice = (JSON.parse(out.text) as { choice: string }).choice;
        if (order[choice.charCodeAt(0) - 65] === right) picked += 1;
      }
      expect(requests.every((r) => r.draw?.includes(':ballot:'))).toBe(true);
      expect(picked / 40).toBeGreaterThanOrEqual(low);
      expect(picked / 40).toBeLessThanOrEqual(high);
      expect(model.stats.unmatched).toBe(0);
      if (accuracy < 0.5) continue;
      const suspect = async (content: string) => {
        let flagged = 0;
        for (let slot = 0; slot < 40; slot++) {
          const out = await planner.reviewCandidate(context(leafFiles), diffOf(content), {
            slot,
            temperature: 1,
          });
          if ((JSON.parse(out.text) as { verdict: string }).verdict === 'suspect') flagged += 1;
        }
        return flagged;
      };
      expect(await suspect(wrong.content)).toBeGreaterThanOrEqual(10);
      expect(await suspect(right.content)).toBeLessThanOrEqual(8);
    }
  });

  it('stops a run with an error naming the prompt it cannot place', async () => {
    const dir = await tempDir();
    const workspace = await openWorkspace(dir, true, workspaceSettings({}));
    try {
      const model = new RealisticModel({ ...knobs, ideas: [] });
      const config = runConfig({ worker: 'gemini', hitl: 'auto', defaultBranch: 'main' });
      const roles = await WORKERS.gemini.roles(config, workspace, readSettings({}), { model });
      const engine = engineFor(dir, workspace, roles, { secrets: [], env: {} });
      const outcome = await engine.run(await engine.create(textStats.idea, config));
      expect(outcome.status).toBe('failed');
      expect(outcome.error).toMatch(
        /realistic fake model: the prompt names none of the built-in ideas \(draw root:split:0/,
      );
    } finally {
      await workspace.close();
    }
  });

  it('answers a whole run through the real @google/genai client and the fake Gemini server', async () => {
    // Always right, so the run plans (a wrong greedy "minimal" would write the project in one go).
    const model = new RealisticModel({ ...knobs, p: 1, slip: 0 });
    fake = await startFakeGemini(realisticResponder(model));
    const dir = await tempDir();
    const workspace = await openWorkspace(dir, true, workspaceSettings({}));
    try {
      const config = runConfig({ worker: 'gemini', hitl: 'auto', defaultBranch: 'main' });
      const env = { GEMINI_API_KEY: `AIza${'F'.repeat(35)}`, GOOGLE_GEMINI_BASE_URL: fake.baseUrl };
      const engine = engineFor(
        dir,
        workspace,
        await WORKERS.gemini.roles(config, workspace, readSettings(env)),
        { secrets: [], env: {} },
      );
      const runId = await engine.create(textStats.idea, config);
      const outcome = await engine.run(runId);
      expect(outcome.error).toBeUndefined();
      expect(outcome.status).toBe('done');
      expect(summarise(await engine.getRun(runId)).landed).toBe(true);
      const { calls } = model.stats;
      for (const kind of ['minimal', 'split', 'review', 'worker'] as const)
        expect(calls[kind], kind).toBeGreaterThan(0);
      expect(fake.requests.length).toBe(
        Object.values(model.stats.calls).reduce((s, n) => s + n, 0),
      );
      const tree = execFileSync('git', ['ls-tree', '-r', '--name-only', 'main'], {
        cwd: dir,
        encoding: 'utf8',
      });
      expect(tree).toContain('src/stats.mjs');
    } finally {
      await workspace.close();
    }
  }, 60_000);
});
