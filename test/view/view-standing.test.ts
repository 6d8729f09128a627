import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import {
  chromiumInstalled,
  CHROMIUM_PATH,
  launchChromium,
  type Chromium,
} from '../../src/offline/chromium.js';
import { FileSource } from '../../src/surfaces/view/file-source.js';
import { startViewServer, type ViewHandle } from '../../src/surfaces/view/server.js';
import { maker } from '../helpers/cli.js';
import { useTempDirs } from '../helpers/tmp.js';
import { startCli, type CliProcess } from './cli-process.js';

const tempDir = useTempDirs();
const installed = chromiumInstalled();
const children: CliProcess[] = [];
afterEach(async () => {
  for (const child of children.splice(0)) await child.interrupt();
});

describe.skipIf(!installed)(
  `the view tells a live run from an interrupted one from a done one${installed ? '' : ` (skipped: no ${CHROMIUM_PATH})`}`,
  () => {
    let browser: Chromium;
    const views: ViewHandle[] = [];
    beforeAll(async () => {
      browser = await launchChromium({ width: 1280, height: 800 });
    });
    afterAll(async () => {
      for (const view of views) await view.close();
      await browser?.close();
    });

    it(
      'running while its process lives; interrupted once it is killed (answer, then maker resume); done once resumed',
      { timeout: 120_000 },
      async () => {
        const dir = join(await tempDir(), 'repo');
        // A small sim run that waits for its veto on its own page (so it lives until answered).
        const run = startCli([
          'run',
          'a todo app',
          '--dir',
          dir,
          '--worker',
          'sim',
          '--max-depth',
          '1',
          '--no-checks',
          '--confidence',
          'low',
          '--view',
          '--hitl',
          'view',
        ]);
        children.push(run);
        await run.waitFor('stderr', /live view at /);
        const source = await FileSource.open({ dir, secrets: [], pollMs: 100 });
        const view = await startViewServer({ source });
        views.push(view);
        const page = await browser.context.newPage();
        await page.goto(view.url);
        const pill = page.locator('header.top [data-run-status]');
        const root = page.locator('[data-node="root"]');

        // Live: the process holds the workspace and waits for the veto.
        await page.locator('[data-question="q-root-veto"]').waitFor({ timeout: 60_000 });
        expect(await pill.textContent()).toBe('running');
        expect(await root.getAttribute('data-display')).toBe('waiting');

        // Killed: nothing in the state changes, but no process drives the run any more.
        run.child.kill('SIGKILL');
        await run.exited;
        await expect.poll(() => pill.textContent(), { timeout: 10_000 }).toBe('interrupted');

        // Answered on the page: saved, and the page says what moves the run on.
        const veto = page.locator('[data-question="q-root-veto"]');
        await veto.locator('button[data-option="accept"]').click();
        await veto.waitFor({ state: 'detached' });
        const next = page.locator('header.top .next-step');
        await next.waitFor({ timeout: 10_000 });
        expect(await next.textContent()).toContain(`now run maker resume --dir ${dir}`);
        // Built, not landed: the root is not a green "done" yet.
        expect(await root.getAttribute('data-display')).not.toBe('done');

        // Resumed (off a terminal): the answer is taken, the result lands.
        const resumed = await maker(['resume', '--dir', dir]);
        expect(resumed.code, resumed.stderr).toBe(0);
        await expect.poll(() => pill.textContent(), { timeout: 10_000 }).toBe('done');
        expect(await root.getAttribute('data-display')).toBe('done');
        expect(await next.count()).toBe(0);
      },
    );

    it(
      'says the checks are pending, not UNVERIFIED, until they could have run; a run stopped at once says so too',
      { timeout: 120_000 },
      async () => {
        const dir = join(await tempDir(), 'repo');
        // A run of the default depth, checks on: its result is composed well after it starts.
        const run = startCli(['run', 'a todo app', '--dir', dir, '--worker', 'sim', '--view']);
        children.push(run);
        const url = await run.waitFor('stderr', /live view at (\S+)/);
        const page = await browser.context.newPage();
        await page.goto(url);
        const checks = page.locator('header.top [data-checks]');
        await checks.waitFor();
        expect(await checks.textContent()).toBe('checks pending');
        expect(await page.locator('header.top .pill.unverified').count()).toBe(0);
        // Stopped before its result was composed: the summary says pending, not unverified.
        expect(await run.interrupt()).toBe(130);
        expect(run.stdout()).toMatch(
          /^Checks: Pending: the run stopped before its result was composed/m,
        );
        expect(run.stdout()).not.toMatch(/UNVERIFIED/);
      },
    );
  },
);
