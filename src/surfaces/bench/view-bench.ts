import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { MemoryWorkspace } from '../../adapters/memory/memory-workspace.js';
import { SimWorker } from '../../adapters/sim/project-sim.js';
import { makerStateFile } from '../../adapters/state/state-file.js';
import { UsageError } from '../../core/errors.js';
import { MakerEngine } from '../../engine/maker-engine.js';
import { chromiumInstalled, CHROMIUM_PATH, launchChromium } from '../../offline/chromium.js';
import { FileSource } from '../view/file-source.js';
import { startViewServer } from '../view/server.js';
import { runConfig } from '../../app/wiring/wiring.js';
import { ShapePlanner } from './tree-shape.js';

export interface ViewBenchOptions {
  readonly leaves: number;
  readonly loads: number;
  /** Ctrl-C: stops between page loads, closing the browser and the server. */
  readonly signal?: AbortSignal | undefined;
  /** Loads playwright-core (a seam for the installed package, which does not ship it). */
  readonly loadPlaywright?: () => Promise<unknown>;
}

/**
 * `maker bench view`: a finished run over `leaves` minimal subtasks (made as `maker bench tree`
 * makes one, with no latency), served by `maker view`'s server, loaded `loads` times in headless
 * Chromium. Reports when the first picture of the whole tree was on screen, counted from the
 * start of navigation (the page marks it), and how many nodes it drew.
 */
// eslint-disable-next-line max-lines-per-function -- over 80 lines: to be split by job (#40)
export async function runViewBench(options: ViewBenchOptions) {
  // Everything the command needs is checked before it starts anything (a run, a server).
  if (!chromiumInstalled())
    throw new UsageError(
      `maker bench view needs Chromium at ${CHROMIUM_PATH} (scripts/install-chromium.sh installs it).`,
    );
  await (options.loadPlaywright ?? (() => import('playwright-core')))().catch((error: unknown) => {
    if ((error as { code?: string }).code === 'ERR_MODULE_NOT_FOUND')
      throw new UsageError(
        'maker bench view drives Chromium with playwright-core, a development dependency that the installed package does not ship: run it from a checkout after npm ci.',
      );
    throw error;
  });
  const dir = await mkdtemp(join(tmpdir(), 'maker-bench-view-'));
  try {
    const built = performance.now();
    const planner = new ShapePlanner(options.leaves, 0);
    const engine = new MakerEngine({
      workspace: new MemoryWorkspace(),
      roles: {
        planner,
        worker: new SimWorker({
          seed: 1,
          flagRate: 0.05,
          failRate: 0,
          errorRate: 0.05,
          conflictRate: 0,
        }),
      },
      store: makerStateFile(dir),
    });
    const runId = await engine.create(
      'benchmark tree',
      runConfig({
        worker: 'sim',
        hitl: 'auto',
        // The page is measured, not checks (its planner proposes none, its workspace is in memory).
        runChecks: false,
        concurrency: 16,
        maxDepth: planner.shape.depth,
        maxNodes: planner.shape.nodes() + 100,
        defaultBranch: 'main',
      }),
    );
    const outcome = await engine.run(runId);
    const buildMs = Math.round(performance.now() - built);
    const nodes = Object.keys((await engine.getRun(runId)).nodes).length;
    options.signal?.throwIfAborted();
    const view = await startViewServer({ source: await FileSource.open({ dir, secrets: [] }) });
    const loads: { renderedMs: number; drawn: number }[] = [];
    let browser: Awaited<ReturnType<typeof launchChromium>> | undefined;
    try {
      browser = await launchChromium();
      for (let i = 0; i < options.loads; i++) {
        options.signal?.throwIfAborted();
        const page = await browser.context.newPage();
        await page.goto(view.url);
        await page.waitForSelector('html[data-rendered-at]', { timeout: 60_000 });
        loads.push({
          renderedMs: Number(await page.locator('html').getAttribute('data-rendered-at')),
          drawn: await page.locator('[data-node]').count(),
        });
        await page.close();
      }
    } finally {
      await browser?.close();
      await view.close();
    }
    const times = loads.map((l) => l.renderedMs).sort((a, b) => a - b);
    return {
      leaves: options.leaves,
      nodes,
      status: outcome.status,
      buildMs,
      loads: options.loads,
      drawn: Math.min(...loads.map((l) => l.drawn)),
      renderedMs: {
        median: times[Math.floor(times.length / 2)] ?? 0,
        min: times[0] ?? 0,
        max: times.at(-1) ?? 0,
      },
      chromium: CHROMIUM_PATH,
    };
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}
