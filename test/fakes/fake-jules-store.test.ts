import { execFileSync } from 'node:child_process';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { GitWorkspace } from '../../src/adapters/git/git-workspace.js';
import { JulesClient } from '../../src/adapters/jules/client.js';
import { startFakeJules, type FakeJules } from '../../src/offline/fake-jules.js';
import { useTempDirs } from '../helpers/tmp.js';

const tempDir = useTempDirs();
const fakes: FakeJules[] = [];
afterEach(async () => {
  for (const fake of fakes.splice(0)) await fake.close();
});

const PATCH =
  'diff --git a/hello.txt b/hello.txt\nnew file mode 100644\n--- /dev/null\n+++ b/hello.txt\n@@ -0,0 +1 @@\n+hello\n';

describe('the fake Jules keeps its sessions in a store, as Jules outlives its clients', () => {
  it('a fake started again on the store knows every session under its id, and numbers new ones after them', async () => {
    const dir = await tempDir();
    await GitWorkspace.open(dir, { create: true });
    execFileSync('git', ['branch', 'work'], { cwd: dir });
    const apiKey = 'store-key-0123456789';
    const store = join(dir, '.git', 'maker-fake-jules.json');
    const start = async () => {
      const fake = await startFakeJules({
        apiKey,
        sources: [{ owner: 'me', repo: 'app', gitDir: join(dir, '.git') }],
        agent: (context) => ({ patch: PATCH.replace('hello', context.title) }),
        store,
      });
      fakes.push(fake);
      return { fake, client: new JulesClient({ apiKey, baseUrl: fake.baseUrl }) };
    };
    const create = (client: JulesClient, title: string) =>
      client.createSession({
        prompt: `Write ${title}`,
        title,
        source: 'sources/github/me/app',
        startingBranch: 'work',
        requirePlanApproval: false,
      });

    const first = await start();
    const a = await create(first.client, 'slot-a');
    const b = await create(first.client, 'slot-b');
    await first.fake.close();
    fakes.splice(0);

    const second = await start();
    expect((await second.client.getSession(a.id)).title).toBe('slot-a');
    expect((await second.client.getSession(b.id)).title).toBe('slot-b');
    const c = await create(second.client, 'slot-c');
    expect([a.id, b.id]).not.toContain(c.id);
    expect([...second.fake.sessions.values()].map((s) => s.title).sort()).toEqual([
      'slot-a',
      'slot-b',
      'slot-c',
    ]);
  });
});
