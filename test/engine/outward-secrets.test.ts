import { execFileSync } from 'node:child_process';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { FLAWLESS, SimPlanner, SimWorker } from '../../src/adapters/sim/project-sim.js';
import { makerStateFile } from '../../src/adapters/state/state-file.js';
import { makeRedactor } from '../../src/core/errors.js';
import { MakerEngine } from '../../src/engine/maker-engine.js';
import type { Worker } from '../../src/ports/worker.js';
import { inspectRepository } from '../../src/adapters/git/inspect.js';
import { planGitHub } from '../../src/app/github/plan.js';
import { setUpGitHub } from '../../src/app/github/setup.js';
import { remotesFor } from '../../src/app/github/wiring.js';
import type { Target } from '../../src/app/start/preflight.js';
import { openWorkspace } from '../../src/app/wiring/wiring.js';
import { baseConfig } from '../helpers/engine.js';
import { TOKENS, useFakeGitHub } from '../helpers/github.js';
import { useTempDirs } from '../helpers/tmp.js';
import { readSettings } from '../../src/app/settings.js';
import { workspaceSettings } from '../helpers/settings.js';

/**
 * A configured key that reaches the run's text (pasted into the idea, echoed by a model into a
 * title or a worker's summary) is redacted from what leaves through git, as from the state.
 */
const tempDir = useTempDirs();
const startFake = useFakeGitHub();
const KEY = 'run-key-0f3a9c7e'; // of no known format: only the configured value can catch it
const git = (dir: string, ...args: string[]) =>
  execFileSync('git', args, { cwd: dir, encoding: 'utf8' });

/** The sim worker, with the key kept out of the files it writes (a file holding one is red-flagged). */
function keyFreeWorker(): Worker {
  const inner = new SimWorker({ seed: 7, depth: 1, ...FLAWLESS });
  return {
    id: inner.id,
    run: async (task, slot) => {
      const out = await inner.run(task, slot);
      return out.ok
        ? {
            ...out,
            edits: (out.edits ?? []).map((e) => ({
              ...e,
              content: e.content === null ? null : e.content.split(KEY).join('k'),
            })),
            summary: `Wrote it with ${KEY}.`,
          }
        : out;
    },
  };
}

describe('secrets in the text a run commits', () => {
  it('keeps a configured key out of every commit message, as out of the state', async () => {
    const repo = await tempDir();
    const workspace = await openWorkspace(repo, true, workspaceSettings());
    const engine = new MakerEngine({
      workspace,
      roles: {
        planner: new SimPlanner({ seed: 7, depth: 1, ...FLAWLESS }),
        worker: keyFreeWorker(),
      },
      store: makerStateFile(repo, makeRedactor([KEY])),
      secrets: [KEY],
    });
    const runId = await engine.create(`a csv tool; call the API with key ${KEY}`, baseConfig);
    const outcome = await engine.run(runId);
    await workspace.close();
    expect(outcome.status).toBe('done');
    expect(await readFile(join(repo, 'maker-state.json'), 'utf8')).not.toContain(KEY);
    const messages = git(repo, 'log', '--all', '--format=%B');
    expect(messages).toMatch(/Maker-Node/);
    expect(messages).not.toContain(KEY);
    expect(messages).toContain('Wrote it with [redacted].'); // a worker's summary
  });

  it('keeps it out of the pull request and the branches on GitHub', async () => {
    const fake = await startFake();
    const dir = join(await tempDir(), 'app');
    const env = { GITHUB_API_URL: fake.baseUrl, GITHUB_TOKEN: TOKENS.full };
    const { plan, problems } = await planGitHub(
      { repo: { owner: 'alice', name: 'app' } },
      (await inspectRepository(dir)) as Target,
      dir,
      readSettings(env),
    );
    expect(problems).toEqual([]);
    if (plan === undefined) throw new Error('no plan');
    const { workspace, record } = await setUpGitHub(plan, dir, () =>
      openWorkspace(dir, true, workspaceSettings()),
    );
    const engine: MakerEngine = new MakerEngine({
      workspace,
      roles: {
        planner: new SimPlanner({ seed: 7, depth: 1, ...FLAWLESS }),
        worker: keyFreeWorker(),
      },
      store: makerStateFile(dir, makeRedactor([KEY])),
      remote: remotesFor(workspace, TOKENS.full, () => engine.persist()),
      secrets: [KEY],
    });
    const runId = await engine.create(
      `a csv tool; call the API with key ${KEY}`,
      { ...baseConfig, hitl: 'defer' },
      { github: record },
    );
    const outcome = await engine.run(runId);
    await workspace.close();
    expect(outcome.pending.map((q) => q.id)).toEqual(['q-root-veto']);
    const repo = (await fake.state()).repos[0];
    expect(repo?.pulls[0]?.body).toContain('[redacted]'); // the idea, quoted
    expect(JSON.stringify(repo)).not.toContain(KEY);
    // What the branches on GitHub hold (their commits are the local ones).
    const tips = Object.values(repo?.branches ?? {});
    expect(tips.length).toBeGreaterThan(1);
    expect(git(dir, 'log', '--format=%B', ...tips)).not.toContain(KEY);
  });
});
