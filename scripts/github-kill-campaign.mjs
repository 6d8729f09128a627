#!/usr/bin/env node
// Kill campaign at every GitHub request of a `maker demo` (issue #27 item 4): one trial per request
// index (and phase), not random times. The demo's own fake GitHub SIGKILLs the demo's process when
// its nth request arrives (`before`: nothing of it done) or once it was carried out, before the answer
// reaches MAKER (`after`), through MAKER_KILL_AT_GITHUB_REQUEST. Each trial is followed by `maker
// resume` only, and must end with one repository, one merged pull request, and the tree of an
// unkilled demo. Prints one JSON line per trial, then a JSON summary.
//
//   node scripts/build.mjs && node scripts/github-kill-campaign.mjs [--phase after|before|both] [--from N] [--to N]
import { execFileSync, spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

const args = process.argv.slice(2);
const arg = (name, fallback) => {
  const i = args.indexOf(name);
  return i === -1 ? fallback : args[i + 1];
};
const phases = { after: [':after'], before: [''], both: ['', ':after'] }[arg('--phase', 'both')];
const from = Number(arg('--from', '1'));
const to = Number(arg('--to', '100000'));
const cli = join(process.cwd(), 'dist', 'maker.js');
const root = mkdtempSync(join(tmpdir(), 'maker-gh-kill-'));
const env = { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '' };
const maker = (argv, extra = {}) =>
  spawnSync(process.execPath, [cli, ...argv], { env: { ...env, ...extra }, encoding: 'utf8' });
const treeOf = (dir) =>
  execFileSync('git', ['rev-parse', 'main^{tree}'], { cwd: dir, encoding: 'utf8' }).trim();
const worldOf = (dir) =>
  JSON.parse(readFileSync(join(dir, '.git', 'maker-fake-github', 'world.json'), 'utf8'));

const started = Date.now();
const reference = join(root, 'ref');
const ref = maker(['demo', '--dir', reference, '--json']);
if (ref.status !== 0) throw new Error(`the unkilled demo failed: ${ref.stderr}`);
const tree = treeOf(reference);
let trials = 0;
let good = 0;
let beyond = false;
const bad = [];
for (let n = from; n <= to && !beyond; n += 1) {
  for (const phase of phases) {
    const dir = join(root, `k${n}${phase.replace(':', '-')}`);
    const killed = maker(['demo', '--dir', dir, '--json'], {
      MAKER_KILL_AT_GITHUB_REQUEST: `${n}${phase}`,
    });
    if (killed.signal !== 'SIGKILL') {
      // Fewer requests than n: the campaign has covered every index.
      beyond = true;
      rmSync(dir, { recursive: true, force: true });
      break;
    }
    trials += 1;
    const resumed = maker(['resume', '--dir', dir, '--json']);
    let ok = false;
    let why = '';
    try {
      const world = worldOf(dir);
      ok =
        resumed.status === 0 &&
        world.repos.length === 1 &&
        world.pulls.length === 1 &&
        world.pulls[0].merged === true &&
        treeOf(dir) === tree;
      why = ok
        ? ''
        : `exit ${resumed.status}, ${world.repos.length} repos, ${world.pulls.length} PRs`;
    } catch (error) {
      why = `${error.message} ${resumed.stderr.slice(-300)}`;
    }
    if (ok) good += 1;
    else bad.push({ n, phase: phase === '' ? 'before' : 'after', why });
    console.log(
      JSON.stringify({ n, phase: phase === '' ? 'before' : 'after', ok, ...(ok ? {} : { why }) }),
    );
    rmSync(dir, { recursive: true, force: true });
  }
}
rmSync(root, { recursive: true, force: true });
console.log(
  JSON.stringify({
    trials,
    landed: good,
    failed: bad,
    coveredEveryIndex: beyond,
    seconds: Math.round((Date.now() - started) / 1000),
  }),
);
process.exitCode = bad.length === 0 ? 0 : 1;
