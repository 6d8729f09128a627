import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { StateFile } from '../../src/core/tree/schema.js';
import { chromiumInstalled, launchChromium, type Chromium } from '../../src/offline/chromium.js';
import { pageAssets } from '../../src/surfaces/view/assets.js';
import type { RunSnapshot } from '../../src/surfaces/view/protocol.js';
import { buildReport, reportHtml } from '../../src/surfaces/view/report.js';
import { startViewServer, type ViewHandle } from '../../src/surfaces/view/server.js';
import type { ViewSource } from '../../src/surfaces/view/source.js';
import { useTempDirs } from '../helpers/tmp.js';
import { http } from './http.js';
import { simRun } from './sim-run.js';

const tempDir = useTempDirs();
const views: ViewHandle[] = [];
afterEach(async () => {
  for (const view of views.splice(0)) await view.close();
});

/** Markup a model might write; it runs only if the page lets it become HTML. */
const HOSTILE = '<img src=x onerror="window.pwned=(window.pwned||0)+1">';
const HOSTILE_DIFF = `diff --git a/x b/x\n+</script><script>window.pwned=1</script>\n+${HOSTILE}\n`;

/**
 * A finished sim run whose every model-written text is markup, with a pending question of the same,
 * served by a source that hands the page that state and a diff of the same.
 */
async function hostileRun() {
  const dir = await tempDir();
  const { engine, runId } = await simRun(dir, { hitl: 'auto' });
  const state: StateFile = structuredClone(await engine.state());
  const run = state.runs[runId];
  if (run === undefined) throw new Error('no run');
  run.idea = HOSTILE;
  for (const n of Object.values(run.nodes)) {
    n.title = `${HOSTILE} ${n.id}`;
    n.description = `</script>${HOSTILE}`;
  }
  run.questions.push({
    id: 'q-hostile',
    nodeId: run.rootId,
    kind: 'select',
    prompt: HOSTILE,
    options: [{ id: 'a', label: HOSTILE, detail: `</script>${HOSTILE}` }],
    allowText: true,
    context: `</style>${HOSTILE}`,
    createdAt: new Date().toISOString(),
  });
  const leaf = Object.values(run.nodes).find((n) => n.leaf !== undefined && n.baseCommit);
  if (leaf === undefined) throw new Error('no leaf with candidates');
  const source: ViewSource = {
    dir,
    state: () => Promise.resolve(state),
    watch: () => () => undefined,
    answering: () => Promise.resolve({ ok: true, note: HOSTILE, driver: null }),
    answer: () => Promise.reject(new Error('not here')),
    diff: () => Promise.resolve(HOSTILE_DIFF),
    close: () => Promise.resolve(),
  };
  return { dir, runId, run, state, leaf: leaf.id, source };
}

describe('what the view says about a simulated run', () => {
  it('marks a simulated run as simulated in what the page is sent', async () => {
    const { runId, source } = await hostileRun();
    const view = await startViewServer({ source, runId });
    views.push(view);
    const token = new URL(view.url).searchParams.get('token') ?? '';
    const reply = await http(view.port, `/api/snapshot?token=${token}`);
    const snapshot = JSON.parse(reply.body) as RunSnapshot;
    expect(snapshot.run.worker).toBe('sim');
    expect(snapshot.run).toMatchObject({ simulated: true });
  });
});

const installed = chromiumInstalled();

describe.skipIf(!installed)('model-written text in headless Chromium', () => {
  let browser: Chromium;
  beforeAll(async () => {
    browser = await launchChromium();
  });
  afterAll(async () => {
    await browser?.close();
  });

  /** Opens the leaf's detail and checks that every hostile text is shown as text, never run. */
  async function expectInert(url: string, leaf: string) {
    const page = await browser.context.newPage();
    const errors: string[] = [];
    const dialogs: string[] = [];
    page.on('pageerror', (e) => errors.push(e.message));
    page.on('dialog', (d) => {
      dialogs.push(d.message());
      void d.dismiss();
    });
    try {
      await page.goto(url);
      await page.locator('[data-question="q-hostile"]').waitFor();
      await page.locator(`[data-node="${leaf}"]`).click();
      const diff = page.locator(`[data-detail-node="${leaf}"] pre.diff`).first();
      await diff.waitFor();
      expect((await diff.textContent())?.trimEnd()).toBe(HOSTILE_DIFF.trimEnd());
      expect(await page.locator('[data-question="q-hostile"] .prompt').textContent()).toBe(HOSTILE);
      expect(await page.locator('header.top .idea').textContent()).toBe(HOSTILE);
      expect(await page.locator('img').count()).toBe(0);
      expect(await page.evaluate('window.pwned')).toBeUndefined();
      expect(await page.locator('header.top').textContent()).toMatch(/SIMULATED/);
      expect(errors).toEqual([]);
      expect(dialogs).toEqual([]);
    } finally {
      await page.close();
    }
  }

  it('shows titles, prompts and diffs as text on the live page', async () => {
    const { runId, leaf, source } = await hostileRun();
    const view = await startViewServer({ source, runId });
    views.push(view);
    await expectInert(view.url, leaf);
  });

  it('shows them as text in the HTML report', async () => {
    const { dir, run, state, leaf, source } = await hostileRun();
    const report = await buildReport(run, state.runs, {
      diff: source.diff,
      log: [],
      now: new Date(),
      dir,
      driver: null,
    });
    const file = join(dir, 'report.html');
    await writeFile(file, reportHtml(report, await pageAssets()));
    await expectInert(pathToFileURL(file).toString(), leaf);
  });
});
