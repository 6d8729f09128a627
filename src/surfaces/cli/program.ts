import { Command } from 'commander';
import { MakerError } from '../../core/errors.js';
import { answerCommand } from './commands/answer.js';
import { cancelCommand } from './commands/cancel.js';
import {
  benchGroup,
  benchJulesCommand,
  benchJulesRun,
  benchLightCommand,
  benchLightRun,
  benchMcpStartCommand,
  benchMcpStartRun,
  benchTreeCommand,
  benchTreeRun,
} from './commands/bench.js';
import { benchGitHubCommand, benchGitHubRun } from './commands/bench-github.js';
import { benchHanoiCommand } from './commands/bench-hanoi.js';
import { benchProductCommand } from './commands/bench-product.js';
import { benchViewCommand } from './commands/bench-view.js';
import { INTERRUPTED_EXIT, USAGE_EXIT } from './commands/common.js';
import { RUN_EXITS, RUN_INTERRUPTED } from './commands/run-options.js';
import { calibrateCommand } from './commands/calibrate.js';
import { estimateCommand, estimateRun } from './commands/estimate.js';
import { fakeGitHubCommand } from './commands/fake-github.js';
import { fakeJulesCommand } from './commands/fake-jules.js';
import { demoCommand } from './commands/demo.js';
import { doctorCommand } from './commands/doctor.js';
import { resumeCommand } from './commands/resume.js';
import { sandboxCommand } from './commands/sandbox.js';
import { runCommand } from './commands/run.js';
import { reportCommand } from './commands/report.js';
import { statusCommand } from './commands/status.js';
import { viewCommand } from './commands/view.js';
import {
  command,
  configure,
  exitText,
  setTerm,
  toCommander,
  type AnyCommandEntry,
  type CliContext,
  type GroupSpec,
} from './define.js';
import { VERSION } from './version.js';

/**
 * The command tree: every command's definition turned into commander's commands. Light (no command's
 * run): \`maker --help\` pages are rendered from it, at build time too (see help-pages.ts).
 */

/** A group of commands (`maker bench`) and its commands, in the order its help lists them. */
interface GroupEntry {
  readonly group: GroupSpec;
  readonly commands: readonly AnyCommandEntry[];
}

/**
 * Every command, in the order `maker --help` lists them: each definition paired with the loader
 * of its run (a module of its own, loaded only when the command runs; a few light runs are
 * written beside their definition). A new command is its definition file, its run file and one
 * line here.
 */
export const COMMANDS: readonly (AnyCommandEntry | GroupEntry)[] = [
  command(runCommand, () => import('./commands/run-exec.js')),
  command(resumeCommand, () => import('./commands/resume-run.js')),
  command(statusCommand, () => import('./commands/status-run.js')),
  command(answerCommand, () => import('./commands/answer-run.js')),
  command(cancelCommand, () => import('./commands/cancel-run.js')),
  command(viewCommand, () => import('./commands/view-run.js')),
  command(reportCommand, () => import('./commands/report-run.js')),
  command(demoCommand, () => import('./commands/demo-run.js')),
  {
    group: benchGroup,
    commands: [
      command(benchHanoiCommand, () => import('./commands/bench-hanoi-run.js')),
      command(benchProductCommand, () => import('./commands/bench-product-run.js')),
      command(benchTreeCommand, () => Promise.resolve(benchTreeRun)),
      command(benchJulesCommand, () => Promise.resolve(benchJulesRun)),
      command(benchGitHubCommand, () => Promise.resolve(benchGitHubRun)),
      command(benchMcpStartCommand, () => Promise.resolve(benchMcpStartRun)),
      command(benchLightCommand, () => Promise.resolve(benchLightRun)),
      command(benchViewCommand, () => import('./commands/bench-view-run.js')),
    ],
  },
  command(calibrateCommand, () => import('./commands/calibrate-run.js')),
  command(estimateCommand, () => Promise.resolve(estimateRun)),
  command(doctorCommand, () => import('./commands/doctor-run.js')),
  command(sandboxCommand, () => import('./commands/sandbox-run.js')),
  command(fakeJulesCommand, () => import('./commands/fake-jules-run.js')),
  command(fakeGitHubCommand, () => import('./commands/fake-github-run.js')),
];

/** Every command's statuses, a run's in the words of `maker run --help` (see RUN_EXITS). */
export const EXIT_STATUSES = [
  [0, 'success: a run landed or was vetoed; a benchmark measured (or solved)'],
  [1, 'failure: a run failed (the summary says why), a benchmark missed, a file could not be read'],
  USAGE_EXIT,
  ...RUN_EXITS.filter(([code]) => code === 4 || code === 5 || code === 75).map(
    ([code, meaning]) => [code, `a run: ${meaning}`] as const,
  ),
  RUN_INTERRUPTED,
] as const;

/** What the benchmarks exit with (each one's page says what 1 means for it). */
export const BENCH_EXITS = [
  [0, 'measured (bench hanoi: solved with zero errors)'],
  [1, 'the benchmark did not finish as expected (its page says how)'],
  USAGE_EXIT,
  INTERRUPTED_EXIT,
] as const;

const INTRO = `MAKER for Gemini CLI: reliable multi-step work by maximal decomposition,
first-to-ahead-by-k voting and red-flagging (Meyerson et al., "Solving a
Million-Step LLM Task with Zero Errors", arXiv:2511.09030).`;

function isGroup(entry: AnyCommandEntry | GroupEntry): entry is GroupEntry {
  return 'group' in entry;
}

/** The whole command tree, fresh for one invocation; `done` receives the exit status. */
export function buildProgram(ctx: CliContext, done: (status: number) => void): Command {
  const program = configure(new Command('maker'), ctx.io)
    .description(INTRO)
    .usage('<command> [options]')
    .version(VERSION, '-v, --version', 'print the version')
    .option('--verbose', 'with --version: also the node and git programs maker runs')
    .addHelpText(
      'after',
      `\nEvery command has --help; \`maker help <command>\` shows the same page.\nStart with:  maker demo    or    maker bench hanoi --disks 20\n\n${exitText(EXIT_STATUSES)}`,
    );
  for (const entry of COMMANDS) {
    if (!isGroup(entry)) {
      program.addCommand(toCommander(entry, '', ctx, done));
      continue;
    }
    const spec = entry.group;
    const group = setTerm(configure(new Command(spec.name), ctx.io), `${spec.name} <benchmark>`)
      .summary(spec.summary)
      .description(spec.description ?? spec.summary)
      .usage('<benchmark> [options]')
      .addHelpText('after', `\n${exitText(BENCH_EXITS)}`);
    for (const sub of entry.commands) group.addCommand(toCommander(sub, spec.name, ctx, done));
    program.addCommand(group);
  }
  program
    .command('help')
    .summary('show the help of a command')
    .description(
      'Shows the help page of a command: the same page as `maker <command> --help`\n(`maker help` alone: the list of commands).',
    )
    .argument('[command...]', 'a command, e.g. run or bench hanoi')
    .action((path: string[]) => {
      let target: Command = program;
      for (const name of path) {
        const next = target.commands.find((c) => c.name() === name);
        if (next === undefined) throw unknownCommand(path.join(' '));
        target = next;
      }
      target.outputHelp();
      done(0);
    });
  return program;
}

function unknownCommand(name: string): MakerError {
  return new MakerError('usage', `unknown command "${name}". Run \`maker --help\` for the list.`);
}
