import { mkdir } from 'node:fs/promises';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { makerStateFile } from '../../src/adapters/state/state-file.js';
import {
  chromiumInstalled,
  CHROMIUM_PATH,
  launchChromium,
  type Chromium,
} from '../../src/offline/chromium.js';
import { useTempDirs } from '../helpers/tmp.js';
import { startCli, type CliProcess } from './cli-process.js';
import { makerOk } from '../helpers/cli.js';

const tempDir = useTempDirs();
/** Screenshots, for a person to look at (gitignored). */
const SHOTS = join(process.cwd(), 'test-output', 'view');
/**
 * The demos here run without checks (no sandbox: the demo's own way to skip them) and compose
 * locally: what the page draws is the subject, not the checks or GitHub.
 */
const NO_SANDBOX = { MAKER_SANDBOX: 'none' };

const installed = chromiumInstalled();
if (!installed)
  console.warn(
    `Browser tests skipped: no Chromium at ${CHROMIUM_PATH} (install it with scripts/install-chromium.sh).`,
  );

/**
 * Every (node, status) the page draws from now on, recorded in the page as the tree is redrawn
 * (browser code, so given as text: the tests are compiled without the DOM's types).
 */
const RECORD_STATUSES = `(() => {
  const seen = {};
  const note = () => {
    for (const g of document.querySelectorAll('[data-node]')) {
      const list = (seen[g.getAttribute('data-node')] ??= []);
      const status = g.getAttribute('data-display');
      if (list.at(-1) !== status) list.push(status);
    }
  };
  note();
  new MutationObserver(note).observe(document.body, { subtree: true, childList: true, attributes: true });
  window.seenStatuses = seen;
})()`;

describe.skipIf(!installed)(
  `the view in headless Chromium${installed ? '' : ` (skipped: no ${CHROMIUM_PATH}; scripts/install-chromium.sh installs it)`}`,
  () => {
    let browser: Chromium;
    const children: CliProcess[] = [];
    beforeAll(async () => {
      await mkdir(SHOTS, { recursive: true });
      browser = await launchChromium();
    });
    afterAll(async () => {
      for (const child of children) await child.interrupt();
      await browser?.close();
    });

    it(
      'follows a demo run live: nodes appear and change status, a question is answered by clicking, the run goes on',
      { timeout: 360_000 },
      async () => {
        const dir = await tempDir();
        const maker = startCli(
          ['demo', '--view', '--pace', '30', '--local-only', '--dir', dir, '--json'],
          NO_SANDBOX,
        );
        children.push(maker);
        const url = await maker.waitFor(
          'stderr',
          /live view at (http:\/\/127\.0\.0\.1:\d+\/\?\S+)/,
        );
        const page = await browser.context.newPage();
        const errors: string[] = [];
        page.on('pageerror', (e) => errors.push(e.message));
        await page.goto(url);

        // The sim asks at the root how to read the idea; the run waits for the page.
        const clarify = page.locator('[data-question="q-root-clarify-0"]');
        await clarify.waitFor();
        await page.locator('[data-node="root"][data-display="waiting"]').waitFor();
        expect(await page.locator('[data-node]').count()).toBe(1);
        await page.evaluate(RECORD_STATUSES);
        await page.screenshot({ path: join(SHOTS, '1-question.png') });

        await clarify.locator('button[data-option="opt-1"]').click();
        await clarify.waitFor({ state: 'detached' });
        // New nodes arrive over the event stream, without a reload.
        await page.locator('[data-node="0"]').waitFor();
        await page.locator('[data-node="0-0"]').waitFor();
        await page.screenshot({ path: join(SHOTS, '2-progress.png') });

        // The whole demo runs before the veto: without checks, under half a minute beside the suite.
        const veto = page.locator('[data-question="q-root-veto"]');
        await veto.waitFor({ timeout: 120_000 });
        await veto.locator('button[data-option="accept"]').click();
        await page.locator('[data-run-status="done"]').waitFor();
        // Every node is drawn, done.
        const state = await makerStateFile(dir).load();
        const run = Object.values(state.runs)[0];
        expect(run?.status).toBe('done');
        expect(await page.locator('[data-node]').count()).toBe(
          Object.keys(run?.nodes ?? {}).length,
        );
        expect(await page.locator('[data-node]:not([data-display="done"])').count()).toBe(0);

        // Node 0 appeared after the answer and moved through its lifecycle on screen.
        const seen = await page.evaluate<Record<string, string[]>>('window.seenStatuses');
        expect(seen['root']?.[0]).toBe('waiting');
        expect(seen['0']?.at(-1)).toBe('done');
        expect(seen['0']?.filter((s) => s !== 'done').length).toBeGreaterThan(0);

        // A leaf's candidates, side by side, the winner's diff from git.
        const leaf = Object.values(run?.nodes ?? {}).find(
          (n) => n.kind === 'leaf' && n.leaf !== undefined,
        );
        await page.locator(`[data-node="${leaf?.id}"]`).click();
        const winner = page.locator(`[data-detail-node="${leaf?.id}"] .candidate.winner`).last();
        await winner.waitFor();
        expect(await winner.locator('pre.diff').textContent()).toMatch(/^diff --git /);
        await page.screenshot({ path: join(SHOTS, '3-done.png') });
        expect(errors).toEqual([]);
        await page.close();

        // The run is over; the view stays until Ctrl-C, and the exit status is the run's.
        expect(await maker.interrupt()).toBe(0);
        expect(JSON.parse(maker.stdout()) as { status: string }).toMatchObject({ status: 'done' });
      },
    );

    it(
      'opens the HTML report from file:// with the network off, showing every node',
      { timeout: 300_000 },
      async () => {
        const dir = await tempDir();
        await makerOk(['demo', '--local-only', '--dir', dir, '--json'], NO_SANDBOX);
        const file = join(dir, 'report.html');
        await makerOk(['report', '--dir', dir, '--html', file]);
        const state = await makerStateFile(dir).load();
        const run = Object.values(state.runs)[0];
        const nodes = Object.keys(run?.nodes ?? {});

        const context = browser.context;
        await context.setOffline(true);
        const page = await context.newPage();
        const requests: string[] = [];
        page.on('request', (r) => requests.push(r.url()));
        try {
          await page.goto(pathToFileURL(file).toString());
          await page.locator('[data-node="root"]').waitFor();
          expect(await page.locator('[data-node]').count()).toBe(nodes.length);
          for (const id of nodes) expect(await page.locator(`[data-node="${id}"]`).count()).toBe(1);
          await page.locator('[data-node="root"]').click();
          await page.locator('[data-detail-node="root"] .vote').first().waitFor();
          expect(requests).toEqual([pathToFileURL(file).toString()]);
        } finally {
          await page.close();
          await context.setOffline(false);
        }
      },
    );
  },
);
