#!/usr/bin/env node
// What one Jules request costs, apart from any schedule: the real JulesClient (bundled from src/ with
// esbuild) sends `rounds` × 60 concurrent requests (`get`: sessions.get of 60 sessions; `create`:
// sessions.create) to `maker fake-jules` (from dist/, run `npm run build` first) in its own process,
// and prints the CPU per request of both processes (µs, from process.cpuUsage and /proc). Both are
// busy the whole time, so this is the floor a bench trial's requests cost when sent all at once.
//
//   node scripts/jules-request-cost.mjs [get|create] [rounds]
//
// Instruction counts, which a busy machine does not change: run it under cachegrind with two round
// counts, and divide the difference by the difference in requests (60 per round):
//
//   valgrind --tool=cachegrind --cache-sim=no --cachegrind-out-file=/dev/null node scripts/jules-request-cost.mjs get 3
//   valgrind … get 9                                       # client: (Ir₉ − Ir₃) / 360
//   JULES_COST_VALGRIND=/tmp/fake.cg node scripts/jules-request-cost.mjs get 3   # the fake under cachegrind
import { build } from 'esbuild';
import { execFileSync, spawn } from 'node:child_process';
import { once } from 'node:events';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { pathToFileURL } from 'node:url';

const mode = process.argv[2] ?? 'get';
const rounds = Number(process.argv[3] ?? 20);
const root = new URL('..', import.meta.url).pathname;
const dir = mkdtempSync(join(tmpdir(), 'maker-jules-cost-'));
try {
  await build({
    stdin: {
      contents: `export { JulesClient } from './src/adapters/jules/client.js';
export { nodeTransport } from './src/adapters/jules/node-transport.js';`,
      resolveDir: root,
      loader: 'ts',
    },
    bundle: true,
    platform: 'node',
    format: 'esm',
    target: 'node20',
    outfile: join(dir, 'client.mjs'),
    logLevel: 'warning',
  });
  const { JulesClient, nodeTransport } = await import(pathToFileURL(join(dir, 'client.mjs')).href);
  const git = (...args) => execFileSync('git', args, { stdio: 'ignore' });
  git('init', '-q', '--bare', '--initial-branch=main', join(dir, 'origin.git'));
  git('init', '-q', '--initial-branch=main', join(dir, 'work'));
  git(
    '-C',
    join(dir, 'work'),
    '-c',
    'user.name=m',
    '-c',
    'user.email=m@example.com',
    'commit',
    '-q',
    '--allow-empty',
    '-m',
    'base',
  );
  git('-C', join(dir, 'work'), 'push', '-q', join(dir, 'origin.git'), 'main');
  const under = process.env.JULES_COST_VALGRIND;
  const fakeArgs = [
    join(root, 'dist/maker.js'),
    'fake-jules',
    '--source',
    `bench/app=${join(dir, 'origin.git')}`,
    '--agent',
    'touch',
    '--work-ms',
    '3600000',
    '--api-key',
    'k',
    '--stdin-lifetime',
  ];
  const child = under
    ? spawn(
        'valgrind',
        [
          '--tool=cachegrind',
          '--cache-sim=no',
          `--cachegrind-out-file=${under}`,
          process.execPath,
          ...fakeArgs,
        ],
        { stdio: ['pipe', 'pipe', 'ignore'] },
      )
    : spawn(process.execPath, fakeArgs, { stdio: ['pipe', 'pipe', 'inherit'] });
  const [line] = await once(createInterface({ input: child.stdout }), 'line');
  const { baseUrl } = JSON.parse(line);
  const cpuOf = (pid) => {
    const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1].split(' ');
    return (Number(fields[11]) + Number(fields[12])) * 10;
  };
  const client = new JulesClient({ apiKey: 'k', baseUrl, transport: nodeTransport() });
  let n = 0;
  const create = () =>
    client.createSession({
      prompt: 'Task: a benchmark\nWrite it.\n'.repeat(20),
      title: `maker cost n-${n} cand-${n++}`,
      source: 'sources/github/bench/app',
      startingBranch: 'main',
      requirePlanApproval: false,
    });
  const ids = (await Promise.all(Array.from({ length: 60 }, create))).map((s) => s.id);
  const op = mode === 'get' ? (i) => client.getSession(ids[i]) : () => create();
  const round = () => Promise.all(Array.from({ length: 60 }, (_, i) => op(i)));
  for (let r = 0; r < 3; r++) await round();
  const cpu = process.cpuUsage();
  const server = cpuOf(child.pid);
  for (let r = 0; r < rounds; r++) await round();
  const used = process.cpuUsage(cpu);
  const requests = 60 * rounds;
  console.log(
    JSON.stringify({
      mode,
      requests,
      clientUsPerRequest: Math.round((used.user + used.system) / requests),
      serverUsPerRequest: Math.round(((cpuOf(child.pid) - server) * 1000) / requests),
    }),
  );
  const exited = once(child, 'exit');
  child.stdin.end();
  await exited;
} finally {
  rmSync(dir, { recursive: true, force: true });
}
