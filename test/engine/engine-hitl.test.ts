import { execFileSync } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import {
  SimPlanner,
  SimWorker,
  type ProjectSimOptions,
} from '../../src/adapters/sim/project-sim.js';
import { makerStateFile } from '../../src/adapters/state/state-file.js';
import type { RunConfig } from '../../src/core/tree/schema.js';
import { MakerEngine } from '../../src/engine/maker-engine.js';
import { candidateTree } from '../../src/engine/leaf/leaf.js';
import { tally } from '../../src/engine/vote/votes.js';
import { renderNode, renderTree } from '../../src/core/view/summary.js';
import { tallyText } from '../../src/core/view/display.js';
import type { Worker } from '../../src/ports/worker.js';
import { openWorkspace } from '../../src/app/wiring/wiring.js';
import { useTempDirs } from '../helpers/tmp.js';
import { baseConfig } from '../helpers/engine.js';
import { workspaceSettings } from '../helpers/settings.js';

const tempDir = useTempDirs();
const git = (dir: string, ...args: string[]) =>
  execFileSync('git', args, { cwd: dir, encoding: 'utf8' }).trim();

async function setup(sim: Partial<ProjectSimOptions>, worker?: Worker, repo?: string) {
  const dir = repo ?? (await tempDir());
  const workspace = await openWorkspace(dir, true, workspaceSettings());
  const options = { seed: 7, ...sim };
  const events: Record<string, unknown>[] = [];
  const engine = new MakerEngine({
    journal: (e) => void events.push({ ...e }),
    workspace,
    roles: { planner: new SimPlanner(options), worker: worker ?? new SimWorker(options) },
    store: makerStateFile(dir),
  });
  return { dir, engine, workspace, events };
}

const config = (overrides: Partial<RunConfig>): RunConfig => ({ ...baseConfig, ...overrides });

describe('human in the loop', () => {
  it('defers a clarify question, feeds the answer to the subtree, and a veto leaves main untouched', async () => {
    const { dir, engine } = await setup({ clarify: true });
    const mainBefore = git(dir, 'rev-parse', 'main');
    const runId = await engine.create('a todo app', config({ hitl: 'defer' }));
    let outcome = await engine.run(runId);
    expect(outcome.status).toBe('awaiting-human');
    expect(outcome.pending.map((q) => [q.id, q.kind])).toEqual([['q-root-clarify-0', 'clarify']]);
    await engine.answer(runId, 'q-root-clarify-0', 'only the command line, no web UI');
    outcome = await engine.run(runId);
    expect(outcome.status).toBe('awaiting-human');
    expect(outcome.pending.map((q) => q.id)).toEqual(['q-root-veto']);
    const run = await engine.getRun(runId);
    const clarifications = run.nodes['root']?.clarifications ?? [];
    expect(clarifications.map((c) => c.answer)).toEqual(['only the command line, no web UI']);
    expect(clarifications[0]?.question).toContain('a todo app');
    const rootBranch = `maker/${runId}/n-root`;
    expect(
      git(dir, 'grep', '-l', 'only the command line, no web UI', rootBranch, '--', 'src'),
    ).not.toBe('');
    await engine.answer(runId, 'q-root-veto', 'veto');
    outcome = await engine.run(runId);
    expect(outcome.status).toBe('vetoed');
    expect(git(dir, 'rev-parse', 'main')).toBe(mainBefore);
    expect(outcome.result?.landed).toBe(false);
  });

  it('stops with a clear message under --hitl fail', async () => {
    const { engine } = await setup({ clarify: true });
    const runId = await engine.create('a todo app', config({ hitl: 'fail' }));
    const outcome = await engine.run(runId);
    expect(outcome.status).toBe('failed');
    expect(outcome.error).toMatch(/--hitl is "fail".*q-root-clarify-0/);
  });

  it('turns an unsettled vote into a select question and commits the person’s choice', async () => {
    const { dir, engine, events } = await setup({
      errorRate: 0.45,
      judgeAccuracy: 0.5,
      flagRate: 0,
      failRate: 0,
      confusedRate: 0,
      depth: 1,
    });
    const runId = await engine.create(
      'a tiny tool',
      // At 2k − 1 candidates no more can be drawn: split votes go to the judges, then a person.
      config({ hitl: 'defer', maxBallots: 2, maxDepth: 1, maxCandidates: 3 }),
    );
    let selects = 0;
    let ties = 0;
    const chosen = new Map<string, string>();
    for (let round = 0; round < 20; round++) {
      const outcome = await engine.run(runId);
      if (outcome.status !== 'awaiting-human') break;
      for (const q of outcome.pending) {
        if (q.kind === 'select' && q.options.some((o) => o.id === 'candidate-2')) {
          selects += 1;
          // The question tells the samples' votes and the judges' ballots apart.
          const asked = (await engine.getRun(runId)).nodes[q.nodeId ?? '']?.leaf;
          const cast = asked?.ballots.filter((b) => b.status === 'valid').length ?? 0;
          expect(q.prompt).toMatch(/candidate 1: \d+ sample votes?, candidate 2: \d+ sample vote/);
          if (cast > 0) expect(q.prompt).toMatch(/judges' ballots (tied )?\d+ : \d+/);
          // "The judges' choice" only where their ballots put one candidate ahead: never on a tie.
          const ballots = /judges' ballots (tied )?\d+ : \d+/.exec(q.prompt);
          const picks = q.options.filter((o) => o.label.includes("the judges' choice")).length;
          if (ballots?.[1] !== undefined) ties += 1;
          expect(picks).toBe(ballots === null || ballots[1] !== undefined ? 0 : 1);
          chosen.set(q.nodeId ?? '', 'candidate-2');
          await engine.answer(runId, q.id, 'candidate-2');
        } else await engine.answer(runId, q.id, q.options[0]?.id ?? 'accept');
      }
    }
    expect(selects).toBeGreaterThan(0);
    expect(ties).toBeGreaterThan(0);
    const run = await engine.getRun(runId);
    expect(run.status).toBe('done');
    for (const nodeId of chosen.keys()) {
      const node = run.nodes[nodeId];
      expect(node?.leaf?.outcome?.status).toBe('human');
      // The committed tree is the chosen class's first member's tree.
      const picked = tally(node?.leaf?.draws ?? []).find((c) => c.key === node?.leaf?.outcome?.key);
      expect(git(dir, 'rev-parse', `${node?.commit}^{tree}`)).toBe(
        picked && candidateTree(picked.representative),
      );
      // Status says who chose, with the samples' votes and the ballots apart (it said "2:5").
      expect(renderNode(run, nodeId)).toMatch(
        /candidates: chosen by a person, \d+ : \d+ sample votes(; judges' ballots (tied )?\d+ : \d+)? for /,
      );
    }
    // The journal's vote-end: votes and runnerUpVotes count samples; ballots apart.
    const ends = events.filter((e) => e['type'] === 'vote-end');
    const leafEnds = ends.filter((e) => e['vote'] === 'patch' && chosen.has(String(e['nodeId'])));
    expect(leafEnds.length).toBeGreaterThan(0);
    for (const e of leafEnds) {
      const leaf = run.nodes[String(e['nodeId'])]?.leaf;
      const valid = leaf?.draws.filter((d) => d.status === 'valid').length ?? 0;
      expect(Number(e['votes']) + Number(e['runnerUpVotes'])).toBeLessThanOrEqual(valid);
      if ((leaf?.ballots.length ?? 0) > 0) expect(e['ballots']).toMatch(/^\d+:\d+$/);
    }
  });

  it('under --hitl auto, a settled select says it was chosen automatically, not by a person', async () => {
    const { dir, engine } = await setup({
      errorRate: 0.45,
      judgeAccuracy: 0.5,
      flagRate: 0,
      failRate: 0,
      confusedRate: 0,
      depth: 1,
    });
    const runId = await engine.create(
      'a tiny tool',
      config({ hitl: 'auto', maxBallots: 2, maxDepth: 1, maxCandidates: 3 }),
    );
    expect((await engine.run(runId)).status).toBe('done');
    const run = await engine.getRun(runId);
    const picked = Object.values(run.nodes).filter((n) => n.leaf?.outcome?.status === 'human');
    expect(picked.length).toBeGreaterThan(0);
    expect(run.questions.every((q) => q.answer?.auto === true)).toBe(true);
    const tree = renderTree(run);
    expect(tree).not.toMatch(/chosen by a person/);
    expect(tree).toMatch(/chosen automatically \(--hitl auto\)/);
    for (const n of picked) {
      expect(tallyText(n.leaf)).toMatch(/^chosen automatically \(--hitl auto\)/);
      expect(renderNode(run, n.id)).toMatch(
        /^ {2}candidates: chosen automatically \(--hitl auto\), /m,
      );
      const message = git(dir, 'log', '-1', '--format=%B', n.commit ?? '');
      expect(message).toMatch(/^Maker-Votes: .*chosen automatically \(--hitl auto\)\)$/m);
    }
  });

  it('waits for an answer given while the run is live (--hitl tty mode)', async () => {
    const { engine } = await setup({ clarify: true });
    const runId = await engine.create('a todo app', config({ hitl: 'wait' }));
    const answered = (async () => {
      for await (const event of engine.events()) {
        if (event.type === 'question-asked')
          await engine.answer(runId, event.question.id, event.question.options[0]?.id ?? 'accept');
        if (event.type === 'run-end') return;
      }
    })();
    const outcome = await engine.run(runId);
    engine.close();
    await answered;
    expect(outcome.status).toBe('done');
  });

  it('rejects answers that fit no option, naming the options', async () => {
    const { engine } = await setup({ clarify: true });
    const runId = await engine.create('a todo app', config({ hitl: 'defer' }));
    await engine.run(runId);
    await engine.answer(runId, 'q-root-clarify-0', '1');
    await engine.run(runId);
    await expect(engine.answer(runId, 'q-root-veto', 'maybe')).rejects.toThrow(
      /Options: 1 = accept, 2 = veto/,
    );
    await expect(engine.answer(runId, 'q-nope', 'accept')).rejects.toThrow(/Pending: q-root-veto/);
  });

  it('cancels on abort and resumes to the same tree', async () => {
    const reference = await setup({});
    const refOutcome = await reference.engine.run(
      await reference.engine.create('same idea', config({})),
    );
    const { engine } = await setup({});
    const runId = await engine.create('same idea', config({}));
    const controller = new AbortController();
    let commits = 0;
    void (async () => {
      for await (const event of engine.events())
        if (event.type === 'commit-end' && ++commits === 2) controller.abort(new Error('stop'));
    })();
    const stopped = await engine.run(runId, { signal: controller.signal });
    expect(stopped.status).toBe('cancelled');
    const resumed = await engine.run(runId);
    engine.close();
    expect(resumed.status).toBe('done');
    expect(resumed.result?.treeHash).toBe(refOutcome.result?.treeHash);
  });
});

describe('hostile worker output', () => {
  it('red-flags escaping paths, .git writes, stale patches and failures, and still finishes', async () => {
    const sim = new SimWorker({ seed: 7, flagRate: 0, failRate: 0, errorRate: 0, confusedRate: 0 });
    const hostile: Worker = {
      id: 'hostile',
      run: async (task, slot) => {
        switch (slot % 6) {
          case 1:
            return { ok: true, edits: [{ path: '../escape.txt', content: 'x' }] };
          case 3:
            return {
              ok: true,
              patch:
                'diff --git a/.git/hooks/post-checkout b/.git/hooks/post-checkout\nnew file mode 100755\n--- /dev/null\n+++ b/.git/hooks/post-checkout\n@@ -0,0 +1 @@\n+rm -rf ~\n',
            };
          case 4:
            return {
              ok: true,
              patch:
                'diff --git a/missing.txt b/missing.txt\n--- a/missing.txt\n+++ b/missing.txt\n@@ -1 +1 @@\n-a\n+b\n',
            };
          case 5:
            return { ok: false, reason: 'session FAILED' };
          default:
            return sim.run(task, slot);
        }
      },
    };
    const { dir, engine } = await setup(
      { flagRate: 0, failRate: 0, errorRate: 0, confusedRate: 0 },
      hostile,
    );
    const runId = await engine.create(
      'a small tool',
      config({ hitl: 'auto', maxCandidates: 12, maxFlagRate: 0.9 }),
    );
    const outcome = await engine.run(runId);
    expect(outcome.status).toBe('done');
    const run = await engine.getRun(runId);
    const rules = new Set(
      Object.values(run.nodes).flatMap((n) =>
        (n.leaf?.draws ?? []).flatMap((d) => d.flags.map((f) => f.rule)),
      ),
    );
    for (const rule of ['unsafe-path', 'does-not-apply', 'worker-failed'])
      expect(rules).toContain(rule);
    expect(git(dir, 'ls-tree', '-r', '--name-only', 'main')).not.toMatch(/escape|hooks/);
  });
});
