import { execFileSync } from 'node:child_process';
import { afterEach } from 'vitest';
import { GitWorkspace } from '../../src/adapters/git/git-workspace.js';
import { JulesClient } from '../../src/adapters/jules/client.js';
import { JulesWorker } from '../../src/adapters/jules/worker.js';
import type { WorkerTask } from '../../src/ports/worker.js';
import { startFakeJules, type FakeJules } from '../../src/offline/fake-jules.js';
import { useTempDirs } from './tmp.js';

export const PATCH =
  'diff --git a/a.txt b/a.txt\nnew file mode 100644\n--- /dev/null\n+++ b/a.txt\n@@ -0,0 +1 @@\n+a\n';

/**
 * A fake Jules with a repository as its me/app source, and a worker on it (`setup`). The fake a
 * test holds (`held.fake`: set by `setup`, or by the test) is closed after the test.
 */
export function useJulesWorkers() {
  const tempDir = useTempDirs();
  const held: { fake: FakeJules | undefined } = { fake: undefined };
  afterEach(async () => {
    await held.fake?.close();
    held.fake = undefined;
  });
  async function setup(
    script: Parameters<typeof startFakeJules>[0]['agent'] = () => ({ patch: PATCH }),
  ) {
    const dir = await tempDir();
    const ws = await GitWorkspace.open(dir, { create: true });
    const base = (await ws.resolve('main')) as string;
    const apiKey = 'jules-worker-key-0123456789';
    const fake = (held.fake = await startFakeJules({
      apiKey,
      sources: [{ owner: 'me', repo: 'app', gitDir: `${dir}/.git` }],
      agent: script,
    }));
    const published: string[] = [];
    const worker = new JulesWorker({
      client: new JulesClient({ apiKey, baseUrl: fake.baseUrl, sleep: () => Promise.resolve() }),
      source: 'sources/github/me/app',
      publisher: {
        publish: (branch, commit) => {
          published.push(branch);
          // A commit this repository does not have (the stale-base case) leaves the branch at main.
          const exists = (() => {
            try {
              execFileSync('git', ['cat-file', '-e', `${commit}^{commit}`], {
                cwd: dir,
                stdio: 'ignore',
              });
              return true;
            } catch {
              return false;
            }
          })();
          execFileSync('git', ['branch', '-f', branch, exists ? commit : 'main'], { cwd: dir });
          return Promise.resolve();
        },
      },
      sleep: () => Promise.resolve(),
    });
    const task = addATask(base, ['a.txt']);
    return { worker, task, published, fake, gitDir: `${dir}/.git` };
  }
  return { held, setup, tempDir };
}

/** A worker on the fake's me/app source whose branches are created in `gitDir`, with `extra` options. */
export function workerOn(
  server: FakeJules,
  gitDir: string,
  extra: Partial<ConstructorParameters<typeof JulesWorker>[0]>,
): JulesWorker {
  return new JulesWorker({
    client: new JulesClient({
      apiKey: 'jules-worker-key-0123456789',
      baseUrl: server.baseUrl,
      sleep: () => Promise.resolve(),
    }),
    source: 'sources/github/me/app',
    publisher: {
      publish: (branch, commit) => {
        execFileSync('git', ['--git-dir', gitDir, 'branch', '-f', branch, commit]);
        return Promise.resolve();
      },
    },
    sleep: () => Promise.resolve(),
    ...extra,
  });
}

/** Run r1's leaf 0-1, "Add a" (a.txt), on branch maker/r1/n-0-1 at `baseCommit`, touching `files`. */
export function addATask(baseCommit: string, files: string[] = []): WorkerTask {
  return {
    context: {
      runId: 'r1',
      nodeId: '0-1',
      idea: 'idea',
      depth: 1,
      maxDepth: 2,
      task: { title: 'Add a', description: 'Add a.txt', acceptance: [], files, dependsOn: [] },
      ancestors: ['idea'],
      clarifications: [],
    },
    baseCommit,
    branch: 'maker/r1/n-0-1',
  };
}
