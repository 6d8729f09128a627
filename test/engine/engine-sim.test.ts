import { execFileSync } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { openWorkspace } from '../../src/app/wiring/wiring.js';
import {
  SimPlanner,
  SimWorker,
  type ProjectSimOptions,
} from '../../src/adapters/sim/project-sim.js';
import { makerStateFile } from '../../src/adapters/state/state-file.js';
import { baseConfig } from '../helpers/engine.js';
import { MakerEngine } from '../../src/engine/maker-engine.js';
import type { EngineEvent } from '../../src/engine/events.js';
import { useTempDirs } from '../helpers/tmp.js';
import { workspaceSettings } from '../helpers/settings.js';

const tempDir = useTempDirs();
const git = (dir: string, ...args: string[]) =>
  execFileSync('git', args, { cwd: dir, encoding: 'utf8' }).trim();

async function setup(sim: Partial<ProjectSimOptions> = {}, dir?: string) {
  const repo = dir ?? (await tempDir());
  const workspace = await openWorkspace(repo, true, workspaceSettings());
  const events: EngineEvent[] = [];
  const engine = new MakerEngine({
    workspace,
    roles: {
      planner: new SimPlanner({ seed: 7, ...sim }),
      worker: new SimWorker({ seed: 7, ...sim }),
    },
    store: makerStateFile(repo),
    journal: (event) => void events.push(event),
  });
  return { repo, engine, events, workspace };
}

describe('MakerEngine with the simulated planner and worker', () => {
  it('decomposes, votes, composes and lands a run on main', async () => {
    const { repo, engine, events } = await setup();
    const runId = await engine.create('a CLI that converts CSV to Parquet', baseConfig);
    const outcome = await engine.run(runId);
    expect(outcome.error).toBeUndefined();
    expect(outcome.status).toBe('done');
    expect(outcome.result?.landed).toBe(true);
    expect(git(repo, 'rev-parse', 'main')).toBe(outcome.result?.finalCommit);
    expect(git(repo, 'rev-parse', 'main^{tree}')).toBe(outcome.result?.treeHash);
    const files = git(repo, 'ls-tree', '-r', '--name-only', 'main').split('\n');
    expect(files.some((f) => f.endsWith('index.md'))).toBe(true);
    expect(git(repo, 'status', '--porcelain')).toBe('');
    const types = new Set(events.map((e) => e.type));
    for (const t of [
      'run-start',
      'node-split',
      'vote-end',
      'commit-end',
      'merge-end',
      'question-asked',
      'run-end',
    ])
      expect(types).toContain(t);
    expect(git(repo, 'log', '--format=%B', '-1', `maker/${runId}/n-0-0`)).toMatch(
      /Maker-Node: 0-0/,
    );
  });

  it('gives the same tree for the same seed', async () => {
    const a = await setup();
    const b = await setup();
    const ra = await a.engine.run(await a.engine.create('same idea', baseConfig));
    const rb = await b.engine.run(await b.engine.create('same idea', baseConfig));
    expect(ra.result?.treeHash).toBe(rb.result?.treeHash);
  });

  it('bounds the tree by depth and node count', async () => {
    const { engine } = await setup({ depth: 5 });
    const runId = await engine.create('a sprawling idea', {
      ...baseConfig,
      maxDepth: 4,
      maxNodes: 6,
    });
    const outcome = await engine.run(runId);
    expect(outcome.status).toBe('done');
    const run = await engine.getRun(runId);
    expect(Object.keys(run.nodes).length).toBeLessThanOrEqual(6);
    const shallow = await setup({ depth: 5 });
    const id = await shallow.engine.create('a sprawling idea', { ...baseConfig, maxDepth: 1 });
    await shallow.engine.run(id);
    expect(
      Math.max(...Object.values((await shallow.engine.getRun(id)).nodes).map((n) => n.depth)),
    ).toBe(1);
  });

  it('turns merge conflicts into voted integrations that keep both sides', async () => {
    const { repo, engine, events } = await setup({
      conflictRate: 1,
      depth: 1,
      errorRate: 0,
      flagRate: 0,
      failRate: 0,
      confusedRate: 0,
    });
    const runId = await engine.create('a conflicting idea', { ...baseConfig, maxDepth: 1 });
    const outcome = await engine.run(runId);
    expect(outcome.status).toBe('done');
    const conflicts = events.filter((e) => e.type === 'merge-conflict');
    expect(conflicts.length).toBeGreaterThan(0);
    const notes = git(repo, 'show', 'main:src/NOTES.md');
    expect(notes).not.toMatch(/<{7}|>{7}|={7}/);
    const run = await engine.getRun(runId);
    const root = run.nodes['root'];
    const integrated = Object.keys(root?.integrations ?? {});
    expect(integrated.length).toBe(conflicts.length);
    // Every child whose merge conflicted still has its line in the shared notes.
    for (const index of integrated) expect(notes).toContain(run.nodes[index]?.title ?? '?');
    expect(git(repo, 'log', '--format=%s', '-20', 'main')).toMatch(/Merge \d: /);
  });

  it('keeps every run created at once (one shared state load)', async () => {
    const { engine } = await setup();
    const ids = await Promise.all(
      ['one', 'two', 'three'].map((idea) => engine.create(idea, baseConfig)),
    );
    const state = await engine.state();
    expect(Object.keys(state.runs).sort()).toEqual([...ids].sort());
  });
});
