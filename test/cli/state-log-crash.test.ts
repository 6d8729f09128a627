import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { makerStateFile } from '../../src/adapters/state/state-file.js';
import { stateFileSchema } from '../../src/core/tree/schema.js';
import { maker } from '../helpers/cli.js';
import { useTempDirs } from '../helpers/tmp.js';

/**
 * kill -9 right after a save was appended to `maker-state.json.log` and before any snapshot folded
 * it into `maker-state.json` (the MAKER_CRASH_AT seam, not timing), then resume: the run ends with
 * the tree an uninterrupted run gives, and the snapshot is whole again after the clean stop.
 */
const tempDir = useTempDirs();
const IDEA = 'a CLI that converts CSV to Parquet';
const RUN_ARGS = ['--worker', 'sim', '--no-checks', '--hitl', 'auto', '--seed', '11', '--json'];

interface Summary {
  status: string;
  treeHash: string;
  nodes: number;
  samples: number;
}

const nodeCount = (state: { runs: Record<string, { nodes: object }> }) =>
  Object.values(state.runs).reduce((sum, run) => sum + Object.keys(run.nodes).length, 0);

describe('kill -9 between a log append and a snapshot, then resume', () => {
  it('resumes from snapshot + log to the tree an uninterrupted run gives', async () => {
    const reference = await tempDir();
    const clean = await maker(['run', IDEA, '--dir', reference, ...RUN_ARGS]);
    expect(clean.code).toBe(0);
    const expected = JSON.parse(clean.stdout) as Summary;

    for (const nth of [3, 40]) {
      const dir = await tempDir();
      const killed = await maker(['run', IDEA, '--dir', dir, ...RUN_ARGS], {
        MAKER_CRASH_AT: `state:log-appended@${nth}`,
      });
      expect(killed.signal).toBe('SIGKILL');
      // The snapshot alone is behind: what the run did since is only in the log.
      const snapshot = JSON.parse(await readFile(join(dir, 'maker-state.json'), 'utf8')) as {
        runs: Record<string, { nodes: object }>;
      };
      const log = (await readFile(join(dir, 'maker-state.json.log'), 'utf8')).trim().split('\n');
      expect(log.length).toBeGreaterThan(nth);
      const loaded = await makerStateFile(dir).load();
      expect(loaded).not.toEqual(stateFileSchema.parse(snapshot));
      expect(nodeCount(loaded)).toBeGreaterThanOrEqual(nodeCount(snapshot));

      const resumed = await maker(['resume', '--dir', dir, '--json']);
      expect(resumed.code).toBe(0);
      const summary = JSON.parse(resumed.stdout) as Summary;
      expect(summary.status).toBe('done');
      expect(summary.treeHash).toBe(expected.treeHash);
      expect(summary.nodes).toBe(expected.nodes);
      expect(summary.samples).toBe(expected.samples);

      // A clean stop leaves the whole state in maker-state.json and an empty log.
      const whole = JSON.parse(await readFile(join(dir, 'maker-state.json'), 'utf8')) as {
        $generation?: number;
      };
      delete whole.$generation;
      expect(whole).toEqual(JSON.parse(JSON.stringify(await makerStateFile(dir).load())));
      expect(
        (await readFile(join(dir, 'maker-state.json.log'), 'utf8')).trim().split('\n'),
      ).toHaveLength(1);
    }
  }, 120_000);
});
