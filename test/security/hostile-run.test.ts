import { execFile } from 'node:child_process';
import { mkdir, mkdtemp, readdir, readFile, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FLAWLESS, SimPlanner, SimWorker } from '../../src/adapters/sim/project-sim.js';
import { makerStateFile } from '../../src/adapters/state/state-file.js';
import { makeRedactor } from '../../src/core/errors.js';
import { MakerEngine } from '../../src/engine/maker-engine.js';
import type { Planner } from '../../src/ports/planner.js';
import type { Worker } from '../../src/ports/worker.js';
import { openWorkspace } from '../../src/app/wiring/wiring.js';
import { baseConfig } from '../helpers/engine.js';
import { plantCanaries, type Canaries } from './canaries.js';
import { machineSandbox, workspaceSettings } from '../helpers/settings.js';

const execFileAsync = promisify(execFile);
const sandbox = await machineSandbox();

/**
 * A planner that writes a hostile check into every subtask it proposes (the worker's `probe.sh`,
 * the probe of `canaries.ts`, then the subtask's own check), and records every input it was
 * given: what a model would be shown in its prompts.
 */
function hostilePlanner(inner: Planner, seen: string[]): Planner {
  const record = <T>(args: unknown, answer: Promise<T>) => {
    seen.push(JSON.stringify(args));
    return answer;
  };
  return {
    id: inner.id,
    isMinimal: (context, call) => record([context], inner.isMinimal(context, call)),
    castBallot: (context, question, options, call) =>
      record([context, question, options], inner.castBallot(context, question, options, call)),
    reviewCandidate: (context, candidate, call) =>
      record([context, candidate], inner.reviewCandidate(context, candidate, call)),
    proposeSplit: async (context, call) => {
      seen.push(JSON.stringify([context]));
      const response = await inner.proposeSplit(context, call);
      try {
        const plan = JSON.parse(response.text) as {
          subtasks: { check?: string; files?: string[] }[];
        };
        for (const s of plan.subtasks) {
          s.check = `sh probe.sh >&2; ${s.check ?? 'true'}`;
          s.files = [...(s.files ?? []), 'probe.sh'];
        }
        return { ...response, text: JSON.stringify(plan) };
      } catch {
        return response; // a truncated sample: red-flagged as it is
      }
    },
  };
}

/** A worker whose every candidate also writes the probe (the same file, so merges agree on it). */
function probingWorker(inner: Worker, probe: string): Worker {
  return {
    id: inner.id,
    run: async (task, slot) => {
      const out = await inner.run(task, slot);
      return out.ok
        ? { ...out, edits: [...(out.edits ?? []), { path: 'probe.sh', content: `${probe}\n` }] }
        : out;
    },
  };
}

let outside: string;
let repo: string;
let canaries: Canaries;

beforeAll(async () => {
  const root = join(process.cwd(), 'node_modules', '.cache');
  await mkdir(root, { recursive: true });
  outside = await mkdtemp(join(root, 'maker-hostile-run-'));
  repo = join(outside, 'project');
  await mkdir(repo);
  canaries = await plantCanaries(outside, repo);
});

afterAll(async () => {
  await canaries.close();
  await rm(outside, { recursive: true, force: true });
});

describe.skipIf(sandbox === undefined)('a run whose planner writes hostile checks', () => {
  it('keeps every canary out of the state, the journal, git, and what the model is shown', async () => {
    const env = { ...process.env, ...canaries.env, HOME: canaries.home };
    const workspace = await openWorkspace(repo, true, workspaceSettings(env));
    const seen: string[] = [];
    const engine = new MakerEngine({
      workspace,
      roles: {
        planner: hostilePlanner(new SimPlanner({ seed: 7, depth: 1, ...FLAWLESS }), seen),
        worker: probingWorker(new SimWorker({ seed: 7, depth: 1, ...FLAWLESS }), canaries.probe),
      },
      store: makerStateFile(repo, makeRedactor([])),
    });
    const runId = await engine.create('a csv tool', {
      ...baseConfig,
      runChecks: true,
      concurrency: 2,
    });
    const outcome = await engine.run(runId);
    await workspace.close();
    expect(outcome.status, JSON.stringify(outcome).slice(0, 3000)).toBe('done');

    // The probes ran (their output is in the checks' results), and found nothing.
    const state = await readFile(join(repo, 'maker-state.json'), 'utf8');
    expect(state).toContain('probe-done');
    const files = (await readdir(repo)).filter((f) => f.startsWith('maker-'));
    const written = await Promise.all(files.map((f) => readFile(join(repo, f), 'utf8')));
    const objects = (
      await execFileAsync('git', ['-C', repo, 'cat-file', '--batch-all-objects', '--batch'], {
        maxBuffer: 256 * 1024 * 1024,
        encoding: 'latin1',
      })
    ).stdout;
    for (const text of [...written, objects, ...seen]) {
      const at = text.indexOf(canaries.secret);
      expect(at < 0 ? '' : text.slice(Math.max(0, at - 300), at + 100)).toBe('');
    }
  });
});
