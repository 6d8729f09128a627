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
export async function runViewBench(options: ViewBenchOptions) {
  await refuseWithoutBrowser(options.loadPlaywright);
  const dir = await mkdtemp(join(tmpdir(), 'maker-bench-view-'));
  try {
    const built = performance.now();
    const run = await buildFinishedRun(dir, options.leaves);
    const buildMs = Math.round(performance.now() - built);
    options.signal?.throwIfAborted();
    const loads = await loadViewPages(dir, options.loads, options.signal);
    const times = loads.map((l) => l.renderedMs).sort((a, b) => a - b);
    return {
      leaves: options.leaves,
      nodes: run.nodes,
      status: run.status,
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

/**
 * Everything the command needs is checked before it starts anything (a run, a server): Chromium,
 * and playwright-core (loaded by `loadPlaywright`).
 */
async function refuseWithoutBrowser(loadPlaywright: ViewBenchOptions['loadPlaywright']) {
  if (!chromiumInstalled())
    throw new UsageError(
      `maker bench view needs Chromium at ${CHROMIUM_PATH} (scripts/install-chromium.sh installs it).`,
    );
  await (loadPlaywright ?? (() => import('playwright-core')))().catch((error: unknown) => {
    if ((error as { code?: string }).code === 'ERR_MODULE_NOT_FOUND')
      throw new UsageError(
        'maker bench view drives Chromium with playwright-core, a development dependency that the installed package does not ship: run it from a checkout after npm ci.',
      );
    throw error;
  });
}

/** A finished run over `leaves` minimal subtasks, saved in `dir`: how it ended and its nodes. */
async function buildFinishedRun(dir: string, leaves: number) {
  const planner = new ShapePlanner(leaves, 0);
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
  return { status: outcome.status, nodes: Object.keys((await engine.getRun(runId)).nodes).length };
}

/**
 * Serves the run saved in `dir` as `maker view` does and loads its page `loads` times in headless
 * Chromium (stopping between loads on `signal`); closes the browser and the server.
 */
async function loadViewPages(dir: string, loads: number, signal: AbortSignal | undefined) {
  const view = await startViewServer({ source: await FileSource.open({ dir, secrets: [] }) });
  const loaded: PageLoad[] = [];
  let browser: Browser | undefined;
  try {
    browser = await launchChromium();
    for (let i = 0; i < loads; i++) {
      signal?.throwIfAborted();
      loaded.push(await firstPicture(browser, view.url));
    }
  } finally {
    await browser?.close();
    await view.close();
  }
  return loaded;
}

type Browser = Awaited<ReturnType<typeof launchChromium>>;

interface PageLoad {
  readonly renderedMs: number;
  readonly drawn: number;
}

/** One page load: when the page marked its first picture of the whole tree, and the nodes drawn. */
async function firstPicture(browser: Browser, url: string): Promise<PageLoad> {
  const page = await browser.context.newPage();
  await page.goto(url);
  await page.waitForSelector('html[data-rendered-at]', { timeout: 60_000 });
  const load = {
    renderedMs: Number(await page.locator('html').getAttribute('data-rendered-at')),
    drawn: await page.locator('[data-node]').count(),
  };
  await page.close();
  return load;
}
