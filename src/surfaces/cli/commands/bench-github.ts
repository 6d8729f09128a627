import { existsSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { UsageError } from '../../../core/errors.js';
import { defineCommand, flag, option, type RunOf } from '../define.js';
import { wholeNumber } from '../values.js';

export const benchGitHubCommand = defineCommand({
  name: 'github',
  summary: 'publishing node branches to GitHub, against the fake GitHub in its own process',
  description: `Publishing node branches to GitHub, against the local fake GitHub in its own
process (\`maker fake-github\`; real HTTP, real git). The repository is created, then N node branches
are created and later each moved to its node's commit, B at a time as the
engine asks for them, each batch in one git push with a lease per branch; the
pull request from the root branch is opened, its body updated once per batch,
and merged with the expected head. Reports push processes per batch, git
processes per branch, REST requests per branch move and wall time per branch
(median of R trials).`,
  options: {
    branches: option(
      '--branches <n>',
      'node branches (default 50)',
      wholeNumber({ min: 1, max: 2000 }),
    ),
    batch: option(
      '--batch <n>',
      'branches asked for at one moment (default 10)',
      wholeNumber({ min: 1, max: 500 }),
    ),
    repeats: option(
      '--repeats <n>',
      'trials; the median is reported (default 3)',
      wholeNumber({ min: 1, max: 50 }),
    ),
    json: flag('--json', 'print one JSON object'),
  },
  exits: [
    [0, 'measured'],
    [1, 'the pull request was not merged'],
    [2, 'usage error'],
  ],
});

/** Carries `maker bench github` out. */
export const benchGitHubRun: RunOf<typeof benchGitHubCommand> = {
  run: async ({ options: o }, { io }) => {
    const cliPath = join(dirname(fileURLToPath(import.meta.url)), 'maker.js');
    if (!existsSync(cliPath))
      throw new UsageError(`No bundled CLI at ${cliPath}: run npm run build.`);
    const { runGitHubBench } = await import('../../bench/github-bench.js');
    const report = await runGitHubBench({
      cliPath,
      branches: o.branches ?? 50,
      batch: o.batch ?? 10,
      repeats: o.repeats ?? 3,
    });
    io.stdout(
      o.json === true
        ? `${JSON.stringify(report)}\n`
        : `GitHub: ${report.branches} node branches, ${report.batch} per batch, ${report.batches} batches (${report.branchMoves} branch moves), fake GitHub in its own process\n  ${report.pushProcessesPerBatch} push process(es) per batch, ${report.gitProcessesPerBranch} git processes per branch\n  ${report.restRequestsPerBranchMove} REST requests per branch move (${report.restRequests} in all)\n  wall ${report.wallMsPerBranch.median} ms per branch (median of ${report.repeats}; ${report.wallMsPerBranch.min}-${report.wallMsPerBranch.max})${report.merged ? '' : '\n  the pull request was NOT merged'}\n`,
    );
    return report.merged ? 0 : 1;
  },
};
