import { rm } from 'node:fs/promises';
import { join } from 'node:path';
import { MemoryWorkspace } from '../../adapters/memory/memory-workspace.js';
import { normalizeRepoPath } from '../../core/paths.js';
import { samplingFor } from '../../core/sampling.js';
import type { Subtask } from '../../core/tree/schema.js';
import { LlmPlanner } from '../../engine/models/llm-planner.js';
import { LlmWorker, type EditFormat } from '../../engine/models/llm-worker.js';
import { parseSplit } from '../../engine/vote/parse.js';
import type { LanguageModel } from '../../ports/language-model.js';
import type { NodeContext, RepoContext } from '../../ports/planner.js';
import { writeTree } from './hidden-tests.js';

const MAX_DEPTH = 3;

/**
 * The single-shot baseline: the same prompts as MAKER's default path (its planner's and gemini
 * worker's), one sample each, no vote, no review, no red flag but the answer's parse. The idea
 * is split once; each subtask is written once, in order, onto the files so far; the product is
 * what ends up in `dir`. Every request is sampled as MAKER samples it, from the per-model table
 * (for Gemini 3 and the fakes, temperature 1.0): the single shot is one of MAKER's samples, not a
 * greedy draw, whose result would hang on the prompt's exact wording rather than on the model's
 * accuracy. Draw ids are those of MAKER's first samples (`root:split:0`, `0:worker:0`, …), so a
 * seeded fake answers both arms' first samples alike. Returns what went wrong on the way, if
 * anything (the product is then whatever was written).
 */
export async function singleShot(
  model: LanguageModel,
  idea: string,
  dir: string,
  runId: string,
  editFormat?: EditFormat,
): Promise<string | undefined> {
  const files = new Map<string, string>();
  const repository =
    (paths: () => readonly string[]) =>
    (budget: number): Promise<RepoContext> => {
      const text = [...files.entries()]
        .filter(([path]) => paths().length === 0 || paths().includes(path))
        .map(([path, content]) => `=== ${path} ===\n${content}`)
        .join('\n\n')
        .slice(0, budget);
      return Promise.resolve({ text, chars: text.length, budget, omitted: [] });
    };
  const root: Subtask = {
    title: idea.slice(0, 200),
    description: idea,
    acceptance: [],
    files: [],
    dependsOn: [],
  };
  const context = (nodeId: string, task: Subtask, depth: number): NodeContext => ({
    runId,
    nodeId,
    idea,
    depth,
    maxDepth: MAX_DEPTH,
    task,
    ancestors: depth === 0 ? [] : [root.title],
    clarifications: [],
    repository: repository(() => task.files),
  });
  const planner = new LlmPlanner(model);
  const sampling = samplingFor(model.id, 'split');
  const split = parseSplit(
    await planner.proposeSplit(context('root', root, 0), {
      slot: 0,
      temperature: sampling.temperature,
      sampling,
    }),
  );
  if (!split.ok) return `the plan was unusable: ${split.flags.map((f) => f.message).join('; ')}`;
  const worker = new LlmWorker(
    model,
    new MemoryWorkspace(),
    editFormat === undefined ? {} : { editFormat },
  );
  const problems: string[] = [];
  for (const [index, task] of split.value.subtasks.entries()) {
    const out = await worker.run(
      { context: context(String(index), task, 1), baseCommit: '', branch: `single/${index}` },
      0,
    );
    if (!out.ok) {
      problems.push(`subtask ${index}: ${out.reason}`);
      continue;
    }
    for (const edit of out.edits ?? []) {
      const path = normalizeRepoPath(edit.path);
      if (!path.ok) {
        problems.push(`subtask ${index} wrote ${edit.path}: ${path.reason}`);
        continue;
      }
      if (edit.content === null) {
        files.delete(path.path);
        await rm(join(dir, path.path), { force: true });
      } else files.set(path.path, edit.content);
    }
  }
  await writeTree(
    dir,
    [...files.entries()].map(([path, content]) => ({ path, content })),
  );
  return problems.length === 0 ? undefined : problems.join('; ');
}
