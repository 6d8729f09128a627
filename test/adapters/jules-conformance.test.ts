import { execFileSync } from 'node:child_process';
import { connect, MemorySessionStorage, MemoryStorage } from '@google/jules-sdk';
import { afterEach, describe, expect, it } from 'vitest';
import { GitWorkspace } from '../../src/adapters/git/git-workspace.js';
import { startFakeJules, type FakeJules } from '../../src/offline/fake-jules.js';
import { useTempDirs } from '../helpers/tmp.js';

const tempDir = useTempDirs();
let fake: FakeJules | undefined;
afterEach(async () => {
  await fake?.close();
  fake = undefined;
});

const PATCH =
  'diff --git a/hello.txt b/hello.txt\nnew file mode 100644\n--- /dev/null\n+++ b/hello.txt\n@@ -0,0 +1 @@\n+hello\n';

describe('the fake Jules server speaks what the official @google/jules-sdk expects', () => {
  it('runs a session to its changeSet through the SDK', async () => {
    const dir = await tempDir();
    await GitWorkspace.open(dir, { create: true });
    execFileSync('git', ['branch', 'work'], { cwd: dir });
    const apiKey = 'conformance-key-0123456789';
    fake = await startFakeJules({
      apiKey,
      sources: [{ owner: 'me', repo: 'app', gitDir: `${dir}/.git` }],
      agent: () => ({ patch: PATCH }),
    });
    const jules = connect({
      apiKey,
      baseUrl: fake.baseUrl,
      config: { pollingIntervalMs: 10 },
      storageFactory: {
        activity: () => new MemoryStorage(),
        session: () => new MemorySessionStorage(),
      },
    });
    const source = await jules.sources.get({ github: 'me/app' });
    expect(source?.name).toBe('sources/github/me/app');
    const run = await jules.run({
      prompt: 'Add hello.txt',
      title: 'conformance',
      source: { github: 'me/app', baseBranch: 'work' },
      autoPr: false,
      requireApproval: false,
    });
    const outcome = await run.result();
    expect(outcome.state).toBe('completed');
    expect(outcome.changeSet()?.gitPatch.unidiffPatch).toBe(PATCH);
    const paths = fake.requests.map((r) => `${r.method} ${r.path}`);
    expect(paths).toContain('GET /v1alpha/sources/github/me/app');
    expect(paths).toContain('POST /v1alpha/sessions');
  });
});
