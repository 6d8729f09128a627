import { describe, expect, it } from 'vitest';
import { SimPlanner, SimWorker } from '../../src/adapters/sim/project-sim.js';
import { makerStateFile } from '../../src/adapters/state/state-file.js';
import { MakerEngine } from '../../src/engine/maker-engine.js';
import type { Planner } from '../../src/ports/planner.js';
import { openWorkspace } from '../../src/app/wiring/wiring.js';
import { baseConfig } from '../helpers/engine.js';
import { useTempDirs } from '../helpers/tmp.js';
import { workspaceSettings } from '../helpers/settings.js';

const tempDir = useTempDirs();

/** The sim planner, with a check on every subtask: the subtask's index.md exists and holds no TODO. */
function withChecks(inner: Planner): Planner {
  return {
    id: 'sim+checks',
    isMinimal: (c, call) => inner.isMinimal(c, call),
    castBallot: (c, q, o, call) => inner.castBallot(c, q, o, call),
    reviewCandidate: (c, d, call) => inner.reviewCandidate(c, d, call),
    proposeSplit: async (c, call) => {
      const response = await inner.proposeSplit(c, call);
      try {
        const split = JSON.parse(response.text) as {
          subtasks: { files: string[]; check?: string }[];
        };
        for (const s of split.subtasks) {
          const dir = s.files.find((f) => f.endsWith('/')) ?? '';
          s.check = `test -f ${dir}index.md && ! grep -q TODO ${dir}index.md`;
        }
        return { ...response, text: JSON.stringify(split) };
      } catch {
        return response;
      }
    },
  };
}

describe('subtask checks', () => {
  it('red-flag candidates whose check fails, when --run-checks is on', async () => {
    const dir = await tempDir();
    const workspace = await openWorkspace(dir, true, workspaceSettings());
    const sim = { seed: 7, errorRate: 0.3, depth: 1 };
    const engine = new MakerEngine({
      workspace,
      roles: { planner: withChecks(new SimPlanner(sim)), worker: new SimWorker(sim) },
      store: makerStateFile(dir),
    });
    const runId = await engine.create('a checked idea', {
      ...baseConfig,
      runChecks: true,
      maxDepth: 1,
      maxCandidates: 10,
      maxFlagRate: 0.9,
    });
    const outcome = await engine.run(runId);
    expect(outcome.status).toBe('done');
    const run = await engine.getRun(runId);
    const rules = Object.values(run.nodes).flatMap((n) =>
      (n.leaf?.draws ?? []).flatMap((d) => d.flags.map((f) => f.rule)),
    );
    expect(rules).toContain('check-failed');
    // Nothing with a TODO was committed.
    for (const file of await workspace.listFiles('main')) {
      const [content] = await workspace.readFiles('main', [file]);
      expect(content?.content ?? '').not.toContain('TODO');
    }
  });
});
