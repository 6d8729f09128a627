#!/usr/bin/env node
// The walk of one `maker run` from the idea to the merged pull request, as data: which of src/'s
// files the run's process entered (a function of it ran, not only its module's top level), by
// layer and folder. Measured with V8's precise coverage of the bundle (NODE_V8_COVERAGE), mapped
// back to src/ through the bundle's source maps. The run: a simulated idea, depth 1, checks on,
// landed through a pull request on `maker fake-github` (a process of its own, not counted).
//
//   node scripts/build.mjs && node scripts/walk.mjs [--json] [--idea "<idea>"]
//
// Its order is sampled: the run's process is also profiled (V8's CPU profiler, a sample every
// 100 µs), and each sample names the deepest file of src/ on its stack. Consecutive samples in one
// file are one stop; a stop in a file (or a folder: a room) the walk already left is a return. A
// sample sees where time went, so a file whose functions ran briefly may have no stop: the ordered
// walk is a lower bound of the entered files, and its returns are those of the time spent.
//
// The reading route (scripts/route.mjs) orders the same files as a reader would: from the bin,
// each function that ran read once, stepping into what it refers to, through interfaces too.
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, readdirSync, rmSync } from 'node:fs';
import { SourceMap } from 'node:module';
import { tmpdir } from 'node:os';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { ranFunctions, readingRoute } from './route.mjs';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const maker = join(root, 'dist', 'maker.js');
const args = process.argv.slice(2);
const json = args.includes('--json');
const ideaAt = args.indexOf('--idea');
const idea = ideaAt >= 0 ? args[ideaAt + 1] : 'a command-line notes app';

const scratch = mkdtempSync(join(tmpdir(), 'maker-walk-'));
const fake = spawn(process.execPath, [maker, 'fake-github', '--stdin-lifetime'], {
  stdio: ['pipe', 'pipe', 'inherit'],
  env: {
    PATH: process.env.PATH ?? '',
    MAKER_FAKE_GITHUB_TOKEN: 'fake-github-walk-token-0123456789',
  },
});
try {
  const { baseUrl, login } = await new Promise((ok, fail) => {
    let out = '';
    fake.stdout.on('data', (chunk) => {
      out += chunk;
      const line = out.split('\n').find((l) => l.startsWith('{'));
      if (line !== undefined) ok(JSON.parse(line));
    });
    fake.on('exit', (code) => fail(new Error(`maker fake-github exited ${code}`)));
  });
  const coverage = join(scratch, 'coverage');
  const dir = join(scratch, 'repo');
  const profiles = join(scratch, 'profiles');
  const run = spawnSync(
    process.execPath,
    [
      '--cpu-prof',
      '--cpu-prof-dir',
      profiles,
      '--cpu-prof-interval',
      '100',
      maker,
      'run',
      idea,
      '--dir',
      dir,
      '--worker',
      'sim',
      '--hitl',
      'auto',
      '--max-depth',
      '1',
      '--github',
      `${login}/walk`,
    ],
    {
      encoding: 'utf8',
      env: {
        PATH: process.env.PATH ?? '',
        HOME: scratch,
        GITHUB_API_URL: baseUrl,
        GITHUB_TOKEN: 'fake-github-walk-token-0123456789',
        NODE_V8_COVERAGE: coverage,
      },
    },
  );
  if (run.status !== 0) throw new Error(`maker run exited ${run.status}:\n${run.stderr}`);
  if (!/merged/i.test(run.stdout + run.stderr))
    throw new Error(`the run did not say its pull request merged:\n${run.stdout}\n${run.stderr}`);
  const entered = [...ranFunctions(coverage, root).keys()].sort(); // a function other than a module's top level ran
  const byFolder = {};
  for (const file of entered) {
    const folder = file.split('/').slice(0, 3).join('/');
    byFolder[folder] = (byFolder[folder] ?? 0) + 1;
  }
  const walk = sampledWalk(profiles);
  const route = readingRoute(coverage, root, 'src/surfaces/cli/bin.ts');
  const report = { idea, files: entered.length, byFolder, walk, route, entered };
  if (json) console.log(JSON.stringify(report, null, 2));
  else {
    console.log(
      `maker run "${idea}" (sim, depth 1, checks, --github on the fake) to its merged pull request:`,
    );
    console.log(`  ${entered.length} files of src/ entered (a function of theirs ran)`);
    for (const [folder, n] of Object.entries(byFolder).sort((a, b) => b[1] - a[1]))
      console.log(`  ${String(n).padStart(4)}  ${folder}`);
    const pct = (r) => `${Math.round((100 * r.returns) / Math.max(1, r.stops))}%`;
    console.log(
      `  sampled walk (${walk.samples} samples in src/): ${walk.byFile.rooms} files, ${walk.byFile.stops} stops, ${pct(walk.byFile)} of them returns; by folder, ${walk.byFolder.rooms} rooms, ${walk.byFolder.stops} stops, ${pct(walk.byFolder)} returns`,
    );
    console.log(
      `  reading route (scripts/route.mjs; ${route.units.read} of ${route.units.ran} functions that ran): ${route.byFile.rooms} files, ${route.byFile.stops} stops, ${pct(route.byFile)} of them returns; by folder, ${route.byFolder.rooms} rooms, ${route.byFolder.stops} stops, ${pct(route.byFolder)} returns${route.unread.length === 0 ? '' : `; not reached: ${route.unread.join(', ')}`}`,
    );
    console.log(
      `  returned to most: ${route.returning
        .slice(0, 8)
        .map(([file, n]) => `${file} (${n})`)
        .join(', ')}`,
    );
  }
} finally {
  fake.stdin.end();
  fake.kill();
  rmSync(scratch, { recursive: true, force: true });
}

/** Where a bundle's position comes from in src/, through its source map (cached per bundle file). */
function sourceMapper() {
  const maps = new Map();
  return (url, line, column) => {
    if (!url.startsWith(`file://${join(root, 'dist')}/`)) return undefined;
    const path = fileURLToPath(url);
    if (!maps.has(path))
      maps.set(
        path,
        existsSync(`${path}.map`)
          ? new SourceMap(JSON.parse(readFileSync(`${path}.map`, 'utf8')))
          : undefined,
      );
    const original = maps.get(path)?.findEntry(line, column)?.originalSource;
    if (original === undefined) return undefined;
    const file = relative(root, resolve(dirname(path), original));
    return file.startsWith('src/') ? file : undefined;
  };
}

/**
 * The walk in time order, from the CPU profile of the run's process: each sample's deepest src/
 * file, consecutive repeats as one stop; a return is a stop in a room (a file, or its folder) the
 * walk had already left.
 */
function sampledWalk(profileDir) {
  const toSrc = sourceMapper();
  const sequence = [];
  let samples = 0;
  for (const name of readdirSync(profileDir)) {
    const profile = JSON.parse(readFileSync(join(profileDir, name), 'utf8'));
    const parent = new Map();
    const byId = new Map(profile.nodes.map((n) => [n.id, n]));
    for (const n of profile.nodes) for (const c of n.children ?? []) parent.set(c, n.id);
    const fileOf = new Map();
    const deepest = (id) => {
      if (fileOf.has(id)) return fileOf.get(id);
      const { url, lineNumber, columnNumber } = byId.get(id).callFrame;
      const file =
        toSrc(url, lineNumber, columnNumber) ??
        (parent.has(id) ? deepest(parent.get(id)) : undefined);
      fileOf.set(id, file);
      return file;
    };
    for (const id of profile.samples) {
      const file = deepest(id);
      if (file === undefined) continue;
      samples += 1;
      sequence.push(file);
    }
  }
  const rooms = (room) => {
    const stops = [];
    for (const file of sequence) {
      const r = room(file);
      if (stops.at(-1) !== r) stops.push(r);
    }
    const seen = new Set();
    let returns = 0;
    for (const r of stops) {
      if (seen.has(r)) returns += 1;
      seen.add(r);
    }
    return { rooms: seen.size, stops: stops.length, returns };
  };
  return {
    samples,
    byFile: rooms((f) => f),
    byFolder: rooms((f) => dirname(f)),
  };
}
