import { defineCommand, option } from '../define.js';
import { text } from '../values.js';
import { dirOption, INTERRUPTED_EXIT, jsonFlag, USAGE_EXIT } from './common.js';

export const sandboxCommand = defineCommand({
  name: 'sandbox',
  summary: "run a command as a check runs: in MAKER's sandbox, on a copy of a commit",
  description: `Runs <command> exactly as MAKER runs a subtask's check, so you can see what a
check sees and what stops it: \`sh -c <command>\` in the sandbox (bubblewrap, else
util-linux unshare), on a fresh copy of --rev's tree at /checkout, with the
dependencies its lock files name installed first (through MAKER's registry
proxy, cached in .git/maker-deps/), no network, an empty home, nothing else of
this machine but the system and the toolchains (read-only), a 2-minute limit,
and the process and memory limits checks have. Its output is printed as a check
keeps it (the last 2,000 characters, why it stopped at the end).

Examples:
  maker sandbox 'ls -A / ~; id'                 # what a check sees
  maker sandbox 'npm test' --rev HEAD~1         # a check on an earlier commit`,
  args: [
    {
      name: 'command',
      help: 'a shell command, as a check would be',
      required: true,
      missing: 'maker sandbox needs a command: maker sandbox "npm test"',
    },
  ],
  options: {
    dir: dirOption,
    rev: option(
      '--rev <rev>',
      'the commit whose tree it runs on (default: HEAD)',
      text('a revision'),
    ),
    install: option(
      '--install <command>',
      'as `maker run --install`: the install before it, or none (default: from the lock files)',
      text('a shell command, or none'),
    ),
    json: jsonFlag,
  },
  exits: [
    [0, 'the command passed'],
    [1, 'the command failed (or a limit stopped it)'],
    USAGE_EXIT,
    [3, 'no sandbox works here, so nothing ran'],
    INTERRUPTED_EXIT,
  ],
  excess: 'maker sandbox takes one command: quote it',
});
