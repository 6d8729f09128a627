import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SimPlanner, SimWorker } from '../../src/adapters/sim/project-sim.js';
import { GitWorkspace } from '../../src/adapters/git/git-workspace.js';
import {
  chromiumInstalled,
  CHROMIUM_PATH,
  launchChromium,
  type Chromium,
} from '../../src/offline/chromium.js';
import { pageAssets } from '../../src/surfaces/view/assets.js';
import { buildReport, reportHtml } from '../../src/surfaces/view/report.js';
import { engineFor, openWorkspace } from '../../src/app/wiring/wiring.js';
import { baseConfig } from '../helpers/engine.js';
import { useTempDirs } from '../helpers/tmp.js';
import { workspaceSettings } from '../helpers/settings.js';

const tempDir = useTempDirs();
const installed = chromiumInstalled();
/** Screenshots, for a person to look at (gitignored). */
const SHOTS = join(process.cwd(), 'test-output', 'view');

/**
 * A finished run whose votes did not all settle: candidates that disagree, judges that tie, and
 * `--hitl auto` choosing (so boxes carry long facts: "chosen automatically (--hitl auto) (2 : 1; …)").
 */
async function finishedRun(dir: string) {
  const workspace = await openWorkspace(dir, true, workspaceSettings());
  const sim = {
    seed: 7,
    errorRate: 0.45,
    judgeAccuracy: 0.5,
    flagRate: 0,
    failRate: 0,
    confusedRate: 0,
    depth: 1,
  };
  const engine = engineFor(
    dir,
    workspace,
    { planner: new SimPlanner(sim), worker: new SimWorker(sim) },
    { secrets: [], env: process.env },
  );
  const runId = await engine.create('a tiny tool', {
    ...baseConfig,
    hitl: 'auto',
    maxBallots: 2,
    maxDepth: 1,
    maxCandidates: 3,
  });
  expect((await engine.run(runId)).status).toBe('done');
  const run = await engine.getRun(runId);
  const runs = (await engine.state()).runs;
  await workspace.close();
  return { run, runs };
}

describe.skipIf(!installed)(
  `a finished run's picture${installed ? '' : ` (skipped: no ${CHROMIUM_PATH})`}`,
  () => {
    let browser: Chromium;
    beforeAll(async () => {
      await mkdir(SHOTS, { recursive: true });
      browser = await launchChromium({ width: 1280, height: 720 });
    });
    afterAll(async () => {
      await browser?.close();
    });

    it(
      'says a losing candidate’s change was not kept, and shows every box’s facts whole',
      { timeout: 120_000 },
      async () => {
        const dir = await tempDir();
        const { run, runs } = await finishedRun(dir);
        const git = await GitWorkspace.open(dir);
        try {
          const report = await buildReport(run, runs, {
            diff: (from, to) => git.diff(from, to),
            log: [],
            now: new Date(),
            dir,
            driver: null,
          });
          // The losing candidates' trees went with the run's scratch store: said so, in words.
          const cards = Object.values(report.details)
            .flatMap((d) => d.votes)
            .filter((v) => v.name === 'Candidates')
            .flatMap((v) => v.candidates)
            .filter((c) => c.status === 'valid');
          const losing = cards.filter((c) => !c.winner);
          expect(losing.length).toBeGreaterThan(0);
          for (const c of losing) expect(c.diff).toMatch(/^\(not kept: a finished run keeps only/);
          for (const c of cards.filter((c) => c.winner)) expect(c.diff).toMatch(/^diff --git/m);

          const file = join(dir, 'report.html');
          await writeFile(file, reportHtml(report, await pageAssets()));
          const page = await browser.context.newPage();
          await page.goto(pathToFileURL(file).toString());
          await page.locator('[data-node="root"]').waitFor();
          await page.screenshot({ path: join(SHOTS, 'finished-facts-1280.png') });
          // Each box's lines of facts (browser code as text: the tests have no DOM types).
          const facts = await page.evaluate<string[]>(
            `[...document.querySelectorAll('.node')].map((box) => [...box.querySelectorAll('text.facts')].map((t) => t.textContent).join(' '))`,
          );
          expect(facts.some((f) => f.includes('chosen automatically (--hitl auto)'))).toBe(true);
          for (const f of facts) expect(f).not.toMatch(/…$/);
        } finally {
          await git.close();
        }
      },
    );
  },
);
