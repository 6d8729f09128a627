import { execFileSync } from 'node:child_process';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { JulesClient } from '../../src/adapters/jules/client.js';
import { JulesWorker } from '../../src/adapters/jules/worker.js';
import { SimPlanner } from '../../src/adapters/sim/project-sim.js';
import { makerStateFile } from '../../src/adapters/state/state-file.js';
import { MakerEngine } from '../../src/engine/maker-engine.js';
import { openWorkspace } from '../../src/surfaces/wiring.js';
import {
  startFakeJules,
  type FakeAgentContext,
  type FakeAgentScript,
  type FakeJules,
} from '../../src/testing/fake-jules.js';
import { baseConfig } from '../helpers/engine.js';
import { useTempDirs } from '../helpers/tmp.js';

const tempDir = useTempDirs();
let fake: FakeJules | undefined;
afterEach(async () => {
  await fake?.close();
  fake = undefined;
});
const git = (dir: string, ...args: string[]) =>
  execFileSync('git', args, { cwd: dir, encoding: 'utf8' }).trim();

/** A fake Jules agent that writes the subtask's index.md from its prompt, with faults by candidate slot. */
function agent(context: FakeAgentContext): FakeAgentScript {
  const dir = /^Files: ([^,\n]+\/)/m.exec(context.prompt)?.[1] ?? 'src/';
  const title = /^Task: (.+)$/m.exec(context.prompt)?.[1] ?? 'task';
  const slot = Number(/cand-(\d+)$/.exec(context.title)?.[1] ?? '0');
  if (slot === 1) return { fail: 'The environment could not be set up.' };
  if (slot === 2)
    return {
      patch:
        'diff --git a/missing.txt b/missing.txt\n--- a/missing.txt\n+++ b/missing.txt\n@@ -1 +1 @@\n-a\n+b\n',
    };
  return {
    patch: `diff --git a/${dir}index.md b/${dir}index.md\nnew file mode 100644\n--- /dev/null\n+++ b/${dir}index.md\n@@ -0,0 +1 @@\n+# ${title}\n`,
  };
}

async function julesEngine(
  script: (context: FakeAgentContext) => FakeAgentScript,
  hitl: 'auto' | 'defer' = 'auto',
) {
  const dir = await tempDir();
  const origin = join(await tempDir(), 'origin.git');
  const workspace = await openWorkspace(dir, true);
  git(dir, 'init', '--bare', origin);
  git(dir, 'remote', 'add', 'origin', origin);
  git(dir, 'push', '--quiet', 'origin', 'main');
  const apiKey = 'jules-test-key-0123456789';
  fake = await startFakeJules({
    apiKey,
    sources: [{ owner: 'me', repo: 'app', gitDir: origin }],
    agent: script,
  });
  const worker = new JulesWorker({
    client: new JulesClient({ apiKey, baseUrl: fake.baseUrl, sleep: () => Promise.resolve() }),
    source: 'sources/github/me/app',
    publishBranch: (branch, commit) => workspace.publishBranch(branch, commit),
    sleep: () => Promise.resolve(),
    concurrency: 3,
  });
  const engine = new MakerEngine({
    workspace,
    roles: { planner: new SimPlanner({ seed: 7, depth: 1, errorRate: 0, flagRate: 0 }), worker },
    store: makerStateFile(dir),
  });
  const runId = await engine.create('a tiny tool', {
    ...baseConfig,
    hitl,
    worker: 'jules',
    maxDepth: 1,
    maxCandidates: 8,
    maxFlagRate: 0.8,
  });
  return { dir, origin, engine, runId, fake };
}

describe('MakerEngine with the Jules worker (against the fake Jules server)', () => {
  it('samples sessions on pushed leaf branches, flags failed and stale ones, votes, commits and composes', async () => {
    const { dir, origin, engine, runId, fake } = await julesEngine(agent);
    const outcome = await engine.run(runId);
    expect(outcome.error).toBeUndefined();
    expect(outcome.status).toBe('done');
    const run = await engine.getRun(runId);
    const leaves = Object.values(run.nodes).filter((n) => n.kind === 'leaf');
    expect(leaves.length).toBeGreaterThan(1);
    for (const leaf of leaves) {
      const rules = (leaf.leaf?.draws ?? []).flatMap((d) => d.flags.map((f) => f.rule));
      expect(rules).toEqual(expect.arrayContaining(['worker-failed', 'does-not-apply']));
      // Every candidate slot is one session, recorded by id; the leaf branch was published for Jules.
      for (const draw of leaf.leaf?.draws ?? [])
        expect(fake.sessions.get(draw.externalId ?? '')?.title).toBe(
          `maker ${runId} n-${leaf.id} cand-${draw.slot}`,
        );
      expect(git(origin, 'rev-parse', `refs/heads/maker/${runId}/n-${leaf.id}`)).toBe(
        leaf.baseCommit,
      );
      expect(git(dir, 'log', '--format=%B', '-1', `maker/${runId}/n-${leaf.id}`)).toMatch(
        /Maker-Worker: jules session \d+/,
      );
    }
    const sessions = leaves.reduce((sum, leaf) => sum + (leaf.leaf?.draws.length ?? 0), 0);
    expect(fake.sessions.size).toBe(sessions);
    expect(git(dir, 'ls-tree', '-r', '--name-only', 'main')).toMatch(/index\.md/);
  });

  it('turns an agent’s question into a clarify question, deferred, answered, and resumed without new sessions', async () => {
    const asking = (context: FakeAgentContext): FakeAgentScript =>
      context.messages.length === 0 && /cand-0$/.test(context.title)
        ? { askFeedback: 'Markdown or plain text?' }
        : agent(context);
    const { engine, runId, fake } = await julesEngine(asking, 'defer');
    let outcome = await engine.run(runId);
    expect(outcome.status).toBe('awaiting-human');
    const questions = outcome.pending.filter((q) => q.prompt === 'Markdown or plain text?');
    expect(questions.length).toBeGreaterThan(0);
    const sessionsBefore = fake.sessions.size;
    for (let round = 0; round < 10 && outcome.status === 'awaiting-human'; round++) {
      for (const q of outcome.pending)
        await engine.answer(
          runId,
          q.id,
          q.kind === 'veto' ? 'accept' : q.allowText ? 'Markdown' : (q.options[0]?.id ?? ''),
        );
      outcome = await engine.run(runId);
    }
    expect(outcome.status).toBe('done');
    // The question slots re-attached to their sessions: every session belongs to exactly one slot.
    const run = await engine.getRun(runId);
    const slots = Object.values(run.nodes).flatMap((n) => n.leaf?.draws ?? []);
    expect(new Set(slots.map((d) => d.externalId)).size).toBe(slots.length);
    expect(fake.sessions.size).toBe(slots.length);
    expect(fake.sessions.size).toBeGreaterThanOrEqual(sessionsBefore);
    const asked = run.questions.filter((q) => q.prompt === 'Markdown or plain text?');
    expect(asked.length).toBeGreaterThanOrEqual(questions.length);
    expect(asked.every((q) => q.answer?.text === 'Markdown')).toBe(true);
    expect(fake.requests.filter((r) => r.path.endsWith(':sendMessage')).length).toBe(asked.length);
  });
});
