import { execFileSync } from 'node:child_process';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { makerStateFile } from '../../src/adapters/state/state-file.js';
import { voteRecords } from '../../src/core/view/summary.js';
import { uniform } from '../../src/core/random.js';
import { spawnMaker } from '../helpers/cli.js';
import { useTempDirs } from '../helpers/tmp.js';

const tempDir = useTempDirs();
const IDEA = 'a CLI that converts CSV to Parquet';
// Without the subtasks' checks: the state's survival of kills is what is tested, and a run of some
// 55 sandboxed checks per trial outran the test's time on a busy machine.
const RUN_ARGS = ['--worker', 'sim', '--hitl', 'auto', '--seed', '11', '--json', '--no-checks'];

/**
 * Runs the CLI in `dir`; with `killAfterMs`, SIGKILLs it that long after its state file first holds
 * a run (if still running), so a loaded machine's slow start does not turn kills into no-ops.
 * Resolves with its exit and output.
 */
async function maker(
  args: string[],
  dir: string,
  killAfterMs?: number,
): Promise<{ code: number | null; killed: boolean; stdout: string }> {
  const run = spawnMaker(args);
  let killed = false;
  let timer: NodeJS.Timeout | undefined;
  const armWhenSaved = async () => {
    while (run.running() && !(await hasRun(dir))) await new Promise((r) => setTimeout(r, 20));
    if (run.running() && killAfterMs !== undefined)
      timer = setTimeout(() => ((killed = run.child.kill('SIGKILL')), undefined), killAfterMs);
  };
  if (killAfterMs !== undefined) void armWhenSaved();
  try {
    const { code, stdout } = await run.ended;
    return { code, killed, stdout };
  } finally {
    if (timer !== undefined) clearTimeout(timer);
  }
}

/** Whether the workspace's state file holds a run (a crash before the first save leaves none). */
function hasRun(dir: string): Promise<boolean> {
  return readFile(join(dir, 'maker-state.json'), 'utf8').then(
    (text) => Object.keys((JSON.parse(text) as { runs: object }).runs).length > 0,
    () => false,
  );
}

/** The status of the workspace's run, read as `maker resume` would (snapshot and log). */
async function runStatus(dir: string): Promise<string | undefined> {
  const state = await makerStateFile(dir)
    .load()
    .catch(() => undefined);
  return state === undefined ? undefined : Object.values(state.runs)[0]?.status;
}

const git = (dir: string, ...args: string[]) =>
  execFileSync('git', args, { cwd: dir, encoding: 'utf8' }).trim();

describe('kill -9 at any moment, then resume', () => {
  it('ends with the tree an uninterrupted run gives, nothing lost or duplicated', async () => {
    const reference = await tempDir();
    const clean = await maker(['run', IDEA, '--dir', reference, ...RUN_ARGS], reference);
    expect(clean.code).toBe(0);
    const expected = JSON.parse(clean.stdout) as {
      treeHash: string;
      nodes: number;
      samples: number;
    };

    let kills = 0;
    let resumes = 0;
    for (let trial = 0; trial < 5; trial++) {
      const dir = await tempDir();
      let result = await maker(
        ['run', IDEA, '--dir', dir, ...RUN_ARGS],
        dir,
        // Kill delays well inside a run's length (a run of this tree takes about 1 s here), so
        // that the kills land mid-run even when the engine overlaps more of its work.
        Math.floor(uniform(5, trial, 0) * 450),
      );
      let finishedBeforeKill = false;
      for (let attempt = 1; result.code !== 0; attempt++) {
        if (result.killed) kills += 1;
        expect(attempt).toBeLessThan(12);
        // A kill between the run's final save and its exit: the run is over, nothing to resume.
        if (result.killed && (await runStatus(dir)) === 'done') {
          finishedBeforeKill = true;
          break;
        }
        // Early kills can land before the run was saved: then the run starts again.
        const saved = await hasRun(dir);
        if (saved) resumes += 1;
        const args = saved
          ? ['resume', '--dir', dir, '--json']
          : ['run', IDEA, '--dir', dir, ...RUN_ARGS];
        result = await maker(
          args,
          dir,
          attempt < 3 ? 50 + Math.floor(uniform(5, trial, attempt) * 350) : undefined,
        );
      }
      if (!finishedBeforeKill) {
        const summary = JSON.parse(result.stdout) as {
          treeHash: string;
          nodes: number;
          samples: number;
          status: string;
        };
        expect(summary.status).toBe('done');
        expect(summary.treeHash).toBe(expected.treeHash);
        expect(summary.nodes).toBe(expected.nodes);
        expect(summary.samples).toBe(expected.samples);
      }

      const state = await makerStateFile(dir).load();
      const runs = Object.values(state.runs);
      expect(runs).toHaveLength(1);
      const run = runs[0];
      if (run === undefined) return;
      expect(run.status).toBe('done');
      expect(Object.keys(run.nodes)).toHaveLength(expected.nodes);
      // Every draw recorded once per slot, none left half-done.
      for (const node of Object.values(run.nodes))
        for (const record of voteRecords(node))
          for (const list of [record.draws, record.ballots]) {
            expect(list.map((d) => d.slot)).toEqual(list.map((_, i) => i));
            expect(list.every((d) => d.status !== 'started')).toBe(true);
          }
      expect(new Set(run.questions.map((q) => q.id)).size).toBe(run.questions.length);
      expect(run.questions.every((q) => q.answer !== undefined)).toBe(true);
      // Each leaf branch is one commit on its base; each merge happened once.
      for (const node of Object.values(run.nodes)) {
        if (node.kind === 'leaf')
          expect(
            git(dir, 'rev-list', '--count', `${node.baseCommit}..maker/${run.id}/n-${node.id}`),
          ).toBe('1');
        if (node.kind === 'branch') expect(node.mergeHeads).toHaveLength(node.children.length + 1);
      }
      expect(git(dir, 'rev-parse', 'main^{tree}')).toBe(expected.treeHash);
    }
    // The kills really interrupted runs, and resumes finished them.
    expect(kills).toBeGreaterThanOrEqual(8);
    expect(resumes).toBeGreaterThanOrEqual(5);
  }, 180_000);
});
