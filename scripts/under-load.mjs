#!/usr/bin/env node
// Runs a command while other work competes for the CPU: starts N CPU-bound load processes (default
// 2, `--load N`), runs the command, stops the load processes (by their own pids) whatever happens,
// and exits with the command's status. The way to check that the test suite holds on a busy
// machine:
//
//   node scripts/under-load.mjs -- npm test
//   node scripts/under-load.mjs --load 4 -- npx vitest run test/cli
//
// Each load process is a Node loop spinning on arithmetic, niced to 0 like the command, started
// detached from the terminal's Ctrl-C (this script forwards it to the command, then stops them).
import { spawn } from 'node:child_process';

const argv = process.argv.slice(2);
const dash = argv.indexOf('--');
const own = dash < 0 ? [] : argv.slice(0, dash);
const command = dash < 0 ? argv : argv.slice(dash + 1);
let load = 2;
for (let i = 0; i < own.length; i++) {
  if (own[i] === '--load' && /^\d+$/.test(own[i + 1] ?? '')) load = Number(own[++i]);
  else {
    process.stderr.write(`under-load: unknown option ${own[i]}\n`);
    process.exit(2);
  }
}
if (command.length === 0) {
  process.stderr.write('usage: node scripts/under-load.mjs [--load N] -- <command> [args…]\n');
  process.exit(2);
}

const SPIN = 'let x = 0; for (;;) { for (let i = 0; i < 1e7; i++) x = (x * 31 + i) % 1000003; }';
const loaders = Array.from({ length: load }, () =>
  spawn(process.execPath, ['-e', SPIN], { stdio: 'ignore', detached: true }),
);
const stopLoad = () => {
  for (const child of loaders) if (child.exitCode === null) child.kill('SIGKILL');
};
process.on('exit', stopLoad);
process.stderr.write(
  `under-load: ${load} CPU-bound process(es) running (pids ${loaders.map((c) => c.pid).join(', ')})\n`,
);

const child = spawn(command[0], command.slice(1), { stdio: 'inherit' });
for (const signal of ['SIGINT', 'SIGTERM'])
  process.on(signal, () => {
    child.kill(signal);
  });
child.on('error', (error) => {
  process.stderr.write(`under-load: could not start ${command[0]}: ${error.message}\n`);
  stopLoad();
  process.exit(127);
});
child.on('close', (code, signal) => {
  stopLoad();
  process.stderr.write('under-load: load stopped\n');
  process.exit(code ?? (signal === null ? 1 : 128));
});
