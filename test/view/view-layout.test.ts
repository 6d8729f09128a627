import { mkdir } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  chromiumInstalled,
  CHROMIUM_PATH,
  launchChromium,
  type Chromium,
} from '../../src/offline/chromium.js';
import { GitWorkspace } from '../../src/adapters/git/git-workspace.js';
import { FileSource } from '../../src/surfaces/view/file-source.js';
import { startViewServer, type ViewHandle } from '../../src/surfaces/view/server.js';
import { useTempDirs } from '../helpers/tmp.js';
import { simRun } from './sim-run.js';

const tempDir = useTempDirs();
const installed = chromiumInstalled();
/** Screenshots, for a person to look at (gitignored). */
const SHOTS = join(process.cwd(), 'test-output', 'view');

describe.skipIf(!installed)(
  `the page on a laptop's screen (1280 × 720)${installed ? '' : ` (skipped: no ${CHROMIUM_PATH})`}`,
  () => {
    let browser: Chromium;
    const views: ViewHandle[] = [];
    beforeAll(async () => {
      await mkdir(SHOTS, { recursive: true });
      browser = await launchChromium({ width: 1280, height: 720 });
    });
    afterAll(async () => {
      for (const view of views) await view.close();
      await browser?.close();
    });

    it(
      'keeps the veto’s Accept and Veto in sight with its diffstat open, and the tree pane tall with the log open',
      { timeout: 120_000 },
      async () => {
        const dir = await tempDir();
        // A run at its final question: the clarify question answered, then the veto asked.
        const { engine, runId, workspace } = await simRun(dir);
        await engine.answer(runId, 'q-root-clarify-0', 'opt-1');
        const outcome = await engine.run(runId);
        expect(outcome.status === 'awaiting-human' && outcome.pending.map((q) => q.id)).toEqual([
          'q-root-veto',
        ]);
        await workspace.close();
        const git = await GitWorkspace.open(dir);
        const source = await FileSource.open({ dir, secrets: [], diff: (a, b) => git.diff(a, b) });
        const view = await startViewServer({ source });
        views.push(view);
        const page = await browser.context.newPage();
        await page.goto(view.url);
        const veto = page.locator('[data-question="q-root-veto"]');
        await veto.waitFor();
        // The activity log is open (it is by default) and has lines.
        expect(await page.locator('footer details[open] .log li').count()).toBeGreaterThan(0);

        await page.screenshot({ path: join(SHOTS, 'veto-log-1280x720.png') });
        // The tree keeps a useful share of the window beside the question and the log.
        const tree = await page.locator('.tree-pane').boundingBox();
        expect(tree?.height ?? 0).toBeGreaterThanOrEqual(720 * 0.4);

        // The diffstat opened: its text scrolls in its own box; the choices stay in sight.
        await veto.locator('details:has(> summary:text("context")) > summary').click();
        const context = veto.locator('details[open] > pre');
        await context.waitFor();
        expect(
          await context.evaluate(
            (e: { scrollHeight: number; clientHeight: number }) => e.scrollHeight > e.clientHeight,
          ),
        ).toBe(true);
        await page.screenshot({ path: join(SHOTS, 'veto-1280x720.png') });
        for (const option of ['accept', 'veto'])
          await expect
            .poll(() =>
              page.evaluate<boolean>(
                inSight(`[data-question="q-root-veto"] button[data-option="${option}"]`),
              ),
            )
            .toBe(true);
        await git.close();
      },
    );
  },
);

/**
 * Whether the element `selector` finds is wholly in sight: inside the window and inside every
 * scrolling box around it (browser code, as text: the tests are compiled without the DOM's types).
 */
const inSight = (selector: string) => `(() => {
  const element = document.querySelector(${JSON.stringify(selector)});
  if (element === null) return false;
  const r = element.getBoundingClientRect();
  if (r.top < 0 || r.bottom > window.innerHeight) return false;
  for (let p = element.parentElement; p !== null; p = p.parentElement) {
    if (!/(auto|scroll|hidden)/.test(getComputedStyle(p).overflowY)) continue;
    const b = p.getBoundingClientRect();
    if (r.top < b.top || r.bottom > b.bottom) return false;
  }
  return true;
})()`;
