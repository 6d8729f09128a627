import { mkdir } from 'node:fs/promises';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { makerStateFile } from '../../src/adapters/state/state-file.js';
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
import { SimPlanner, SimWorker } from '../../src/adapters/sim/project-sim.js';
import { engineFor } from '../../src/app/wiring/wiring.js';
import { makerOk } from '../helpers/cli.js';

const tempDir = useTempDirs();
/** Screenshots, for a person to look at (gitignored). */
const SHOTS = join(process.cwd(), 'test-output', 'view');

/**
 * Every time the selected node's box changes status, whether the detail panel showed the same
 * status in that frame (browser code, as text: the tests are compiled without the DOM's types).
 */
const WATCH_DETAIL = `(() => {
  window.detailLag = [];
  const check = () => {
    const box = document.querySelector('.node.selected');
    if (box === null) return;
    const id = box.getAttribute('data-node');
    const tree = box.getAttribute('data-display');
    const line = document.querySelector('[data-detail-node="' + id + '"] .status-line');
    const detail = line === null ? null : line.getAttribute('data-display');
    if (detail !== tree) window.detailLag.push(id + ': tree ' + tree + ', detail ' + detail);
  };
  new MutationObserver(check).observe(document.body, { subtree: true, childList: true, attributes: true });
})()`;

const installed = chromiumInstalled();

describe.skipIf(!installed)(
  `the view page at 1440 px${installed ? '' : ` (skipped: no ${CHROMIUM_PATH})`}`,
  () => {
    let browser: Chromium;
    const views: ViewHandle[] = [];
    beforeAll(async () => {
      await mkdir(SHOTS, { recursive: true });
      browser = await launchChromium({ width: 1440, height: 900 });
    });
    afterAll(async () => {
      for (const view of views) await view.close();
      await browser?.close();
    });

    it(
      'answered with no process driving: says to run maker resume, keeps a decided list, readable log, one card per class, detail in step with the tree, a veto drawn',
      { timeout: 180_000 },
      async () => {
        const dir = await tempDir();
        const { workspace, runId, outcome } = await simRun(dir);
        // Another process picks up the answers saved from the page (as maker resume would).
        const sim = { seed: 7, clarify: true };
        const resumeEngine = () =>
          engineFor(
            dir,
            workspace,
            { planner: new SimPlanner(sim), worker: new SimWorker(sim) },
            { secrets: [], env: process.env },
          );
        expect(outcome.status).toBe('awaiting-human');
        const git = await GitWorkspace.open(dir);
        const source = await FileSource.open({
          dir,
          secrets: [],
          diff: (from, to) => git.diff(from, to),
        });
        const view = await startViewServer({ source });
        views.push(view);
        const page = await browser.context.newPage();
        const errors: string[] = [];
        page.on('pageerror', (e) => errors.push(e.message));
        await page.goto(view.url);

        // Answer on the page: nothing drives the workspace, so the page says what to do next.
        const clarify = page.locator('[data-question="q-root-clarify-0"]');
        await clarify.locator('button[data-option="opt-1"]').click();
        await clarify.waitFor({ state: 'detached' });
        const next = page.locator('header.top .next-step');
        await next.waitFor();
        expect(await next.textContent()).toContain(`now run maker resume --dir ${dir}`);
        expect(await page.locator('[data-run-status]').textContent()).not.toBe('awaiting-human');
        // The answered question stays in sight, with its answer.
        const decided = page.locator('.decided [data-decided="q-root-clarify-0"]');
        expect(await decided.count()).toBe(1);
        expect(await decided.locator('.answer').textContent()).not.toBe('');

        // The run goes on (here, in this process); the page follows it, the root selected.
        await page.locator('[data-node="root"]').click();
        await page.locator('[data-detail-node="root"] .status-line').waitFor();
        await page.evaluate(WATCH_DETAIL);
        const resumed = await resumeEngine().run(runId);
        expect(
          resumed.status === 'awaiting-human' ? resumed.pending.map((q) => q.id) : resumed,
        ).toEqual(['q-root-veto']);
        const veto = page.locator('[data-question="q-root-veto"]');
        await veto.waitFor({ timeout: 60_000 });
        expect(await page.evaluate<string[]>('window.detailLag')).toEqual([]);

        // Veto on the page, then let the run finish: the root is drawn vetoed, and the legend says so.
        await veto.locator('button[data-option="veto"]').click();
        await veto.waitFor({ state: 'detached' });
        expect((await resumeEngine().run(runId)).status).toBe('vetoed');
        await page.locator('[data-node="root"][data-display="vetoed"]').waitFor();
        expect(await page.locator('.legend li', { hasText: 'vetoed' }).count()).toBe(1);
        expect(await page.locator('.decided [data-decided]').count()).toBe(2);

        // The activity log reads as sentences, not as fields.
        const log = (await page.locator('.log').textContent()) ?? '';
        expect(log).toMatch(/sample #\d+ drawn/);
        expect(log).not.toMatch(/key=|=\[\{|"acceptance"/);

        // A leaf: identical samples share one card, with their count.
        const run = await resumeEngine().getRun(runId);
        // The leaf with the most cards among those where some samples agree.
        const cardsOf = (draws: readonly { key?: string | undefined }[]) =>
          new Set(draws.map((d, i) => d.key ?? `#${i}`)).size;
        const leaf = Object.values(run.nodes)
          .filter(
            (n) => n.leaf?.outcome !== undefined && cardsOf(n.leaf.draws) < n.leaf.draws.length,
          )
          .sort((a, b) => cardsOf(b.leaf?.draws ?? []) - cardsOf(a.leaf?.draws ?? []))[0];
        expect(cardsOf(leaf?.leaf?.draws ?? [])).toBeGreaterThan(1);
        expect(leaf).toBeDefined();
        const id = leaf?.id ?? '';
        await page.locator(`[data-node="${id}"]`).click();
        const cards = page.locator(`[data-detail-node="${id}"] .vote`).last().locator('.candidate');
        await cards.first().waitFor();
        const keys = new Set(
          (leaf?.leaf?.draws ?? []).filter((d) => d.status === 'valid').map((d) => d.key),
        );
        const flaggedDraws = (leaf?.leaf?.draws ?? []).filter((d) => d.status !== 'valid').length;
        expect(await cards.count()).toBe(keys.size + flaggedDraws);
        const winner = cards.and(page.locator('.winner'));
        expect(await winner.count()).toBe(1);
        const winnerKey = leaf?.leaf?.outcome?.key;
        const size = (leaf?.leaf?.draws ?? []).filter((d) => d.key === winnerKey).length;
        expect(await winner.locator('header').textContent()).toContain(`${size} sample votes`);

        // Nothing is cut off at 1440 px: every card inside the panel, every box inside the tree.
        const cut = await page.evaluate<string[]>(`(() => {
          const out = [];
          const panel = document.querySelector('.detail-host').getBoundingClientRect();
          for (const c of document.querySelectorAll('.candidate')) {
            const r = c.getBoundingClientRect();
            if (r.left < panel.left - 1 || r.right > panel.right + 1) out.push('card ' + c.dataset.slot);
          }
          const tree = document.querySelector('.tree');
          if (tree.scrollHeight > tree.clientHeight + 1 && getComputedStyle(tree).overflowY === 'hidden') out.push('tree');
          const svg = tree.querySelector('svg').getBoundingClientRect();
          for (const g of document.querySelectorAll('[data-node] rect')) {
            const r = g.getBoundingClientRect();
            if (r.right > svg.right + 1 || r.bottom > svg.bottom + 1) out.push('box ' + g.parentNode.getAttribute('data-node'));
          }
          return out;
        })()`);
        await cards.first().scrollIntoViewIfNeeded();
        await page.screenshot({ path: join(SHOTS, 'page-1440.png') });
        expect(cut).toEqual([]);
        expect(errors).toEqual([]);
        await page.close();
      },
    );

    it(
      'fits a deep tree into its pane at 1440 px, every box and title whole (the demo, as a report)',
      { timeout: 180_000 },
      async () => {
        const dir = await tempDir();
        // The demo's tree, drawn: its checks are not the subject (no sandbox, none run).
        await makerOk(['demo', '--dir', dir, '--local-only', '--json'], { MAKER_SANDBOX: 'none' });
        const file = join(dir, 'report.html');
        await makerOk(['report', '--dir', dir, '--html', file]);
        const run = Object.values((await makerStateFile(dir).load()).runs)[0];
        const depth = Math.max(...Object.values(run?.nodes ?? {}).map((n) => n.depth));
        expect(depth).toBeGreaterThanOrEqual(2);
        const page = await browser.context.newPage();
        await page.goto(pathToFileURL(file).toString());
        await page.locator('[data-node="root"]').waitFor();
        const cut = await page.evaluate<string[]>(`(() => {
          const out = [];
          const pane = document.querySelector('.tree').getBoundingClientRect();
          for (const g of document.querySelectorAll('[data-node]')) {
            const r = g.querySelector('rect').getBoundingClientRect();
            if (r.left < pane.left - 1 || r.right > pane.right + 1) out.push('box ' + g.getAttribute('data-node'));
            const title = [...g.querySelectorAll('text.title')].map((t) => t.textContent).join(' ');
            if (title.includes('…')) out.push('title ' + title);
          }
          return out;
        })()`);
        await page.screenshot({ path: join(SHOTS, 'deep-1440.png') });
        expect(cut).toEqual([]);
        await page.close();
      },
    );
  },
);
