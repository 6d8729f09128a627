#!/usr/bin/env node
// The crash campaign: SIGKILL `maker demo` (sim and jules-fake) at random moments — by time, and at
// the named checkpoints between the steps of landing and of the GitHub bridge — then `maker resume`
// until it finishes, and compare every final tree with an uninterrupted run's. With --github fake
// (the default) every demo runs against one `maker fake-github` process; with --github demo each
// demo serves its own fake GitHub (killed with it, served again by `maker resume` from the world it
// keeps in .git/maker-fake-github/). Either way each trial must also end with exactly one
// repository and one merged pull request there. Prints one JSON summary; exit 0 when every trial
// lands on its reference tree.
//
//   npm run crash-campaign -- [--trials 50] [--seed 1] [--workers sim,jules-fake] [--github fake|demo|off]
import { spawn, execFileSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { randomBytes } from 'node:crypto';
import { once } from 'node:events';
import { createInterface } from 'node:readline';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { basename, join } from 'node:path';
import { parseArgs } from 'node:util';

const { values } = parseArgs({
  options: {
    trials: { type: 'string', default: '50' },
    seed: { type: 'string', default: '1' },
    workers: { type: 'string', default: 'sim,jules-fake' },
    github: { type: 'string', default: 'fake' },
  },
});
if (!['fake', 'demo', 'off'].includes(values.github))
  throw new Error(`--github takes fake, demo or off; got ${values.github}`);
const GITHUB = values.github !== 'off';
/** One `maker fake-github` process for the campaign (else each demo serves its own). */
const SHARED = values.github === 'fake';
const TRIALS = Number(values.trials);
const workers = values.workers.split(',');
const CLI = join(import.meta.dirname, '..', 'dist', 'maker.js');
// The steps of a demo's landing (a demo's default branch never moves, so there is no merge commit).
const LANDING_STEPS = GITHUB
  ? [
      'github:pr-created',
      'github:pr-saved',
      'github:merge-intent-saved',
      'github:merged',
      'github:fetched',
      'land:read-tree',
      'land:update-ref',
    ]
  : ['land:intent-saved', 'land:read-tree', 'land:update-ref'];

// One fake GitHub for the whole campaign, in its own process (it outlives every kill).
const token = `ghp_${randomBytes(18).toString('hex')}`;
let fakeGitHub;
let githubEnv = {};
if (SHARED) {
  fakeGitHub = spawn(
    process.execPath,
    [join(import.meta.dirname, '..', 'dist', 'maker.js'), 'fake-github', '--stdin-lifetime'],
    {
      stdio: ['pipe', 'pipe', 'inherit'],
      env: { PATH: process.env.PATH, HOME: process.env.HOME, MAKER_FAKE_GITHUB_TOKEN: token },
    },
  );
  const [line] = await once(createInterface({ input: fakeGitHub.stdout }), 'line');
  githubEnv = { GITHUB_API_URL: JSON.parse(line).baseUrl, GITHUB_TOKEN: token };
}

/** The trial's repository at the fake GitHub: how many there are, and its pull requests. */
async function onGitHub(dir) {
  if (!GITHUB) return { ok: true };
  let repos;
  let pulls;
  if (SHARED) {
    const state = await (await fetch(`${githubEnv.GITHUB_API_URL}/_fake/state`)).json();
    repos = state.repos.filter((r) => r.fullName === `maker-demo/${basename(dir)}`);
    pulls = repos[0]?.pulls ?? [];
  } else {
    // The demo's own fake, as it kept its world.
    const world = JSON.parse(
      await readFile(join(dir, '.git', 'maker-fake-github', 'world.json'), 'utf8'),
    );
    repos = world.repos;
    pulls = world.pulls;
  }
  return {
    ok: repos.length === 1 && pulls.length === 1 && pulls[0].merged === true,
    repos: repos.length,
    pulls: pulls.length,
  };
}

// A small seeded generator, so a campaign can be repeated exactly.
let state = Number(values.seed) >>> 0 || 1;
const random = () => {
  state ^= state << 13;
  state ^= state >>> 17;
  state ^= state << 5;
  return (state >>> 0) / 2 ** 32;
};

/**
 * Runs maker. `stateFile`: the time its first save appears is reported (`savedAtMs`), and
 * `killAfterMs` counts from it — a kill before the run exists tests nothing but startup.
 */
function maker(args, { killAfterMs, stateFile, env = {} } = {}) {
  return new Promise((resolve, reject) => {
    const t0 = performance.now();
    const child = spawn(process.execPath, [CLI, ...args], {
      stdio: ['ignore', 'pipe', 'pipe'],
      env: { PATH: process.env.PATH, HOME: process.env.HOME, ...githubEnv, ...env },
    });
    let stdout = '';
    let stderr = '';
    let savedAtMs;
    let timer;
    child.stdout.on('data', (c) => (stdout += c));
    child.stderr.on('data', (c) => (stderr += c));
    const watch =
      stateFile === undefined
        ? undefined
        : setInterval(() => {
            if (!existsSync(stateFile)) return;
            clearInterval(watch);
            savedAtMs = performance.now() - t0;
            if (killAfterMs !== undefined)
              timer = setTimeout(() => child.kill('SIGKILL'), killAfterMs);
          }, 2);
    child.on('error', reject);
    child.on('exit', (code, signal) => {
      clearInterval(watch);
      clearTimeout(timer);
      resolve({ code, signal, stdout, stderr, savedAtMs, wallMs: performance.now() - t0 });
    });
  });
}

const treeOfMain = (dir) =>
  execFileSync('git', ['-C', dir, 'rev-parse', 'main^{tree}'], { encoding: 'utf8' }).trim();
const clean = (dir) =>
  execFileSync('git', ['-C', dir, 'status', '--porcelain'], { encoding: 'utf8' }).trim() === '';

const references = new Map();
async function reference(worker, seed) {
  const key = `${worker}/${seed}`;
  if (!references.has(key)) {
    const dir = await mkdtemp(join(tmpdir(), 'maker-crash-ref-'));
    const run = await maker(
      ['demo', '--dir', dir, '--worker', worker, '--seed', String(seed), '--json'],
      { stateFile: join(dir, 'maker-state.json') },
    );
    if (run.code !== 0) throw new Error(`reference run failed: ${run.stderr}`);
    // The time from the run's first save to its end: where a kill can interrupt a run.
    references.set(key, { tree: treeOfMain(dir), wallMs: run.wallMs - (run.savedAtMs ?? 0) });
    await rm(dir, { recursive: true, force: true });
  }
  return references.get(key);
}

const results = [];
const started = performance.now();
for (let trial = 0; trial < TRIALS; trial++) {
  const worker = workers[trial % workers.length];
  const seed = 1 + Math.floor(random() * 5);
  const { tree: expected, wallMs } = await reference(worker, seed);
  const dir = await mkdtemp(join(tmpdir(), 'maker-crash-'));
  // A third of the kills land between the steps of landing; the rest at a random moment.
  const atStep =
    random() < 1 / 3 ? LANDING_STEPS[Math.floor(random() * LANDING_STEPS.length)] : undefined;
  // Anywhere in the run: a uniform share of an uninterrupted run's time after its first save.
  const killAfterMs = atStep === undefined ? Math.floor(0.97 * random() * wallMs) : undefined;
  const first = await maker(
    ['demo', '--dir', dir, '--worker', worker, '--seed', String(seed), '--json'],
    atStep === undefined
      ? { killAfterMs, stateFile: join(dir, 'maker-state.json') }
      : { env: { MAKER_CRASH_AT: atStep } },
  );
  const killed = first.signal === 'SIGKILL';
  let resumes = 0;
  let last = first;
  // A kill can also land after the run ended (between its last save and the process's exit):
  // then there is nothing to resume, and the landed tree is what counts.
  let endedBeforeKill = false;
  while (last.code !== 0 && resumes < 5) {
    resumes += 1;
    last = await maker(['resume', '--dir', dir, '--json']);
    endedBeforeKill = /Nothing to resume/.test(last.stderr) && resumes === 1;
    if (endedBeforeKill) break;
  }
  const tree = last.code === 0 || endedBeforeKill ? treeOfMain(dir) : undefined;
  const github = await onGitHub(dir);
  const ok = tree === expected && clean(dir) && github.ok;
  results.push({
    trial,
    worker,
    seed,
    kill: atStep ?? `${killAfterMs} ms after the first save`,
    killed,
    ...(endedBeforeKill ? { endedBeforeKill } : {}),
    resumes,
    ok,
    ...(GITHUB ? { github } : {}),
    ...(ok ? {} : { error: (last.stderr || last.stdout).slice(-300) }),
  });
  if (ok) await rm(dir, { recursive: true, force: true });
  process.stderr.write(`${ok ? '.' : 'x'}`);
}
process.stderr.write('\n');
const summary = {
  trials: results.length,
  killed: results.filter((r) => r.killed).length,
  killedAtLandingSteps: results.filter((r) => r.killed && r.kill.startsWith('land:')).length,
  killedAfterTheRunEnded: results.filter((r) => r.endedBeforeKill).length,
  killedAtGitHubSteps: results.filter((r) => r.killed && r.kill.startsWith('github:')).length,
  github: SHARED
    ? 'maker fake-github (one process for the campaign)'
    : GITHUB
      ? "each demo's own fake GitHub, served again on resume"
      : 'off',
  landedOnReference: results.filter((r) => r.ok).length,
  byWorker: Object.fromEntries(
    workers.map((w) => [
      w,
      {
        trials: results.filter((r) => r.worker === w).length,
        ok: results.filter((r) => r.worker === w && r.ok).length,
      },
    ]),
  ),
  wallSeconds: Math.round((performance.now() - started) / 1000),
  failures: results.filter((r) => !r.ok),
};
process.stdout.write(`${JSON.stringify(summary, null, 2)}\n`);
if (fakeGitHub !== undefined) {
  const exited = once(fakeGitHub, 'exit');
  fakeGitHub.stdin.end();
  await exited;
}
process.exitCode = summary.landedOnReference === summary.trials ? 0 : 1;
