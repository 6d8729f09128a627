import { describe, expect, it } from 'vitest';
import { fakeJulesWorker, julesWorker } from '../../src/app/workers/jules-build.js';
import { openWorkspace } from '../../src/app/wiring/wiring.js';
import type { Worker } from '../../src/ports/worker.js';
import { baseConfig } from '../helpers/engine.js';
import { useTempDirs } from '../helpers/tmp.js';
import { workspaceSettings } from '../helpers/settings.js';

const tempDir = useTempDirs();
const integrations: Worker = {
  id: 'integrations',
  run: () => Promise.resolve({ ok: false, reason: 'not used' }),
};
const config = { ...baseConfig, worker: 'jules' as const };
const publisher = { publish: () => Promise.resolve() };

describe('the session pages a worker links to', () => {
  it('Jules links its sessions to their pages; a fake Jules, whose sessions have none, links nothing', async () => {
    // Proves: the run's worker says where its sessions are followed (the pull request's links come
    // from it), so a demo's fake sessions never show a jules.google.com link that leads nowhere.
    const workspace = await openWorkspace(await tempDir(), true, workspaceSettings());
    try {
      const real = julesWorker(config, workspace, { apiKey: 'k' }, integrations, publisher);
      expect(real.sessionUrl('1234/5')).toBe('https://jules.google.com/session/1234%2F5');
      const fake = fakeJulesWorker({ ...config, worker: 'jules-fake' }, workspace, integrations);
      try {
        expect(fake.worker.sessionUrl('1234')).toBeUndefined();
      } finally {
        await fake.close();
      }
    } finally {
      await workspace.close();
    }
  });
});
