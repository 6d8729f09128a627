import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { inspectRepository } from '../../src/adapters/git/inspect.js';
import { SimPlanner, SimWorker } from '../../src/adapters/sim/project-sim.js';
import { makerStateFile } from '../../src/adapters/state/state-file.js';
import { MakerEngine } from '../../src/engine/maker-engine.js';
import { planGitHub } from '../../src/app/github/plan.js';
import { setUpGitHub } from '../../src/app/github/setup.js';
import { remotesFor } from '../../src/app/github/wiring.js';
import type { Target } from '../../src/app/start/preflight.js';
import { openWorkspace } from '../../src/app/wiring/wiring.js';
import type { FakeGitHub } from '../../src/offline/fake-github.js';
import { baseConfig } from '../helpers/engine.js';
import { TOKENS, git, useFakeGitHub } from '../helpers/github.js';
import { useTempDirs } from '../helpers/tmp.js';
import { readSettings } from '../../src/app/settings.js';
import { workspaceSettings } from '../helpers/settings.js';

/**
 * A split vote on a run that publishes to GitHub: each candidate of the select question is pushed
 * as a flat branch `maker/<run>/c-<node>-<vote>-<attempt>-<n>`, each option carries a compare link
 * to it, and the branches are deleted once the vote settles, unless the run keeps candidates.
 */
const tempDir = useTempDirs();
const startFake = useFakeGitHub();

/** Votes that do not settle: half the candidates wrong, coin-flip judges, two ballots at most. */
const SPLIT = {
  seed: 7,
  errorRate: 0.45,
  judgeAccuracy: 0.5,
  flagRate: 0,
  failRate: 0,
  confusedRate: 0,
  depth: 1,
};

async function githubRun(
  fake: FakeGitHub,
  name: string,
  keepCandidates: boolean,
  sim: typeof SPLIT & { conflictRate?: number } = SPLIT,
) {
  const dir = join(await tempDir(), name);
  const env = { GITHUB_API_URL: fake.baseUrl, GITHUB_TOKEN: TOKENS.full };
  const { plan, problems } = await planGitHub(
    { repo: { owner: 'alice', name }, keepCandidates },
    (await inspectRepository(dir)) as Target,
    dir,
    readSettings(env),
  );
  expect(problems).toEqual([]);
  if (plan === undefined) throw new Error('no plan');
  const { workspace, record } = await setUpGitHub(plan, dir, () =>
    openWorkspace(dir, true, workspaceSettings()),
  );
  const remote = remotesFor(workspace, TOKENS.full, () => engine.persist());
  const engine: MakerEngine = new MakerEngine({
    workspace,
    roles: { planner: new SimPlanner(sim), worker: new SimWorker(sim) },
    store: makerStateFile(dir),
    remote,
  });
  const runId = await engine.create(
    'a tiny tool',
    // Candidates capped at 2k−1: no draws past the first batch, so undecided votes reach a person.
    {
      ...baseConfig,
      hitl: 'defer',
      maxBallots: 2,
      maxDepth: 1,
      maxCandidates: 2 * baseConfig.k - 1,
    },
    { github: record },
  );
  return { engine, runId };
}

const branchesOf = async (fake: FakeGitHub, name: string) =>
  (await fake.state()).repos.find((r) => r.fullName === `alice/${name}`)?.branches ?? {};

describe.each([
  { keepCandidates: false, name: 'split' },
  { keepCandidates: true, name: 'kept' },
])('select-question candidates on GitHub (keepCandidates: $keepCandidates)', (c) => {
  it(
    c.keepCandidates
      ? 'candidate branches stay on GitHub after the vote settles'
      : 'candidate branches are pushed with compare links, and deleted once the vote settles',
    async () => {
      const fake = await startFake();
      const { engine, runId } = await githubRun(fake, c.name, c.keepCandidates);
      const htmlBase = (await engine.getRun(runId)).github?.url;
      expect(htmlBase).toBeDefined();
      const bare = join(fake.root, 'alice', `${c.name}.git`);
      let selects = 0;
      const settled: string[] = [];
      for (let round = 0; round < 20; round++) {
        const outcome = await engine.run(runId);
        const branches = await branchesOf(fake, c.name);
        // Every candidate branch of a question answered in an earlier round: gone, or kept.
        for (const b of settled) expect(b in branches).toBe(c.keepCandidates);
        if (outcome.status !== 'awaiting-human') break;
        for (const q of outcome.pending) {
          const candidates = q.options.filter((o) => /^candidate-\d+$/.test(o.id));
          if (q.kind !== 'select' || candidates.length < 2) {
            await engine.answer(runId, q.id, q.options[0]?.id ?? 'accept');
            continue;
          }
          selects += 1;
          const m = /^q-(.+)-(patch)-(\d+)$/.exec(q.id);
          expect(m, `select question id ${q.id}`).not.toBeNull();
          const [, node, vote, attempt] = m as RegExpExecArray;
          for (const [i, option] of candidates.entries()) {
            const branch = `maker/${runId}/c-${node}-${vote}-${attempt}-${i + 1}`;
            // Pushed to GitHub while the question is pending …
            const sha = branches[branch];
            expect(sha, `${branch} on GitHub`).toMatch(/^[0-9a-f]{40}$/);
            // … and the option links to its comparison with the subtask's base (its parent).
            const parent = await git(bare, ['--git-dir', bare, 'rev-parse', `${sha}^`]);
            expect(parent.code).toBe(0);
            expect(option.detail).toContain(
              `Compare on GitHub: ${htmlBase}/compare/${parent.stdout.trim()}...${branch}\n`,
            );
            settled.push(branch);
          }
          // No branch for a candidate the question does not offer.
          expect(
            branches[`maker/${runId}/c-${node}-${vote}-${attempt}-${candidates.length + 1}`],
          ).toBeUndefined();
          await engine.answer(runId, q.id, 'candidate-2');
        }
      }
      expect(selects).toBeGreaterThan(0);
      expect((await engine.getRun(runId)).status).toBe('done');
      const finalBranches = await branchesOf(fake, c.name);
      const left = Object.keys(finalBranches).filter((b) => b.startsWith(`maker/${runId}/c-`));
      expect(left.sort()).toEqual(c.keepCandidates ? [...new Set(settled)].sort() : []);
    },
    120_000,
  );
});

describe('select-question candidates of an integration on GitHub', () => {
  it('are pushed on the node’s commit (an integration’s base is a merge’s tree), and the run goes on', async () => {
    const fake = await startFake();
    // Every split's children touch a shared file, so each merge conflicts and is integrated by a vote.
    const { engine, runId } = await githubRun(fake, 'merges', true, {
      ...SPLIT,
      conflictRate: 1,
      seed: 1,
    });
    const bare = join(fake.root, 'alice', 'merges.git');
    let integrations = 0;
    for (let round = 0; round < 20; round++) {
      const outcome = await engine.run(runId);
      expect(outcome.error).toBeUndefined();
      if (outcome.status !== 'awaiting-human') break;
      for (const q of outcome.pending) {
        const candidates = q.options.filter((o) => /^candidate-\d+$/.test(o.id));
        if (/-integrate-/.test(q.id) && candidates.length > 0) {
          integrations += 1;
          const m = /^q-(.+)-(integrate-.+)-(\d+)$/.exec(q.id) as RegExpExecArray;
          const branch = `maker/${runId}/c-${m[1]}-${m[2]}-${m[3]}-1`;
          // A commit whose parent is a commit (the node's own), not the merge's tree.
          const parent = await git(bare, ['--git-dir', bare, 'rev-parse', `${branch}^`]);
          expect(parent.code, `${branch}^`).toBe(0);
          const type = await git(bare, ['--git-dir', bare, 'cat-file', '-t', parent.stdout.trim()]);
          expect(type.stdout.trim()).toBe('commit');
        }
        await engine.answer(
          runId,
          q.id,
          candidates.length > 0 ? 'candidate-1' : (q.options[0]?.id ?? 'accept'),
        );
      }
    }
    expect(integrations).toBeGreaterThan(0);
    expect((await engine.getRun(runId)).status).toBe('done');
  }, 120_000);
});
