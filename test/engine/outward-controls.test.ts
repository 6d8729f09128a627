import { execFileSync } from 'node:child_process';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { FLAWLESS, SimPlanner, SimWorker } from '../../src/adapters/sim/project-sim.js';
import { inspectRepository } from '../../src/adapters/git/inspect.js';
import { makerStateFile } from '../../src/adapters/state/state-file.js';
import { MakerEngine } from '../../src/engine/maker-engine.js';
import type { Worker } from '../../src/ports/worker.js';
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
 * Control characters from the model (or the idea) never reach git or GitHub as they are: `git log`
 * and a terminal showing the pull request would replay them (clear the screen, retitle the window).
 */
const tempDir = useTempDirs();
const startFake = useFakeGitHub();
const HOSTILE = '\u001b[2J\u001b]0;pwned\u0007\r';
// eslint-disable-next-line no-control-regex
const CONTROL = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f]/u;

/** The sim worker, its summary carrying terminal escape sequences. */
function hostileWorker(): Worker {
  const inner = new SimWorker({ seed: 7, depth: 1, ...FLAWLESS });
  return {
    id: inner.id,
    run: async (task, slot) => {
      const out = await inner.run(task, slot);
      return out.ok ? { ...out, summary: `Done.${HOSTILE}` } : out;
    },
  };
}

describe('control characters in what a run writes to git and GitHub', () => {
  it('are escaped in commit messages, the pull request title and its body', async () => {
    // Failed at main: ESC, BEL and CR reached the commit messages and the pull request.
    const fake = await startFake();
    const dir = join(await tempDir(), 'app');
    const env = { GITHUB_API_URL: fake.baseUrl, GITHUB_TOKEN: TOKENS.full };
    const { plan } = await planGitHub(
      { repo: { owner: 'alice', name: 'app' } },
      (await inspectRepository(dir)) as Target,
      dir,
      readSettings(env),
    );
    if (plan === undefined) throw new Error('no plan');
    const { workspace, record } = await setUpGitHub(plan, dir, () =>
      openWorkspace(dir, true, workspaceSettings()),
    );
    const engine: MakerEngine = new MakerEngine({
      workspace,
      roles: {
        planner: new SimPlanner({ seed: 7, depth: 1, ...FLAWLESS }),
        worker: hostileWorker(),
      },
      store: makerStateFile(dir),
      remote: remotesFor(workspace, TOKENS.full, () => engine.persist()),
    });
    const runId = await engine.create(
      `a csv tool ${HOSTILE}`,
      { ...baseConfig, hitl: 'defer' },
      { github: record },
    );
    await engine.run(runId);
    await workspace.close();
    const pull = (await fake.state()).repos[0]?.pulls[0];
    const texts: [string, string][] = [
      [
        'commit messages',
        execFileSync('git', ['log', '--all', '--format=%B'], { cwd: dir, encoding: 'utf8' }),
      ],
      ['pull request title', pull?.title ?? ''],
      ['pull request body', pull?.body ?? ''],
    ];
    for (const [where, text] of texts) {
      expect(text, where).not.toMatch(CONTROL);
      expect(text, where).toContain('\\u001b');
    }
  });
});
