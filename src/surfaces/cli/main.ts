import { makeRedactor, MakerError } from '../../core/errors.js';
import { secretsOf } from '../wiring.js';
import { benchCommand, BENCH_HELP } from './commands/bench.js';
import { estimateCommand, ESTIMATE_HELP } from './commands/estimate.js';
import { fakeJulesCommand, FAKE_JULES_HELP } from './commands/fake-jules.js';
import { runCommand, RUN_HELP } from './commands/run.js';
import { answerCommand, statusCommand, STATUS_HELP } from './commands/status.js';
import { processIo, type CliIo } from './io.js';

declare const MAKER_VERSION: string | undefined;
const VERSION = typeof MAKER_VERSION === 'string' ? MAKER_VERSION : '0.0.0-dev';

export const MAIN_HELP = `maker — MAKER for Gemini CLI: reliable multi-step work by maximal
decomposition, first-to-ahead-by-k voting and red-flagging (Meyerson et al.,
"Solving a Million-Step LLM Task with Zero Errors", arXiv:2511.09030).

Usage:
  maker <command> [options]

Commands:
  run "<idea>"  decompose, vote and compose an idea into a git repository
  resume        continue an unfinished run from maker-state.json
  status        the run's tree, votes, flags, cost and pending questions
  answer        answer a pending question (clarify, select or veto)
  demo          the whole pipeline offline on the simulated model and worker
  bench hanoi   the paper's million-step Towers of Hanoi benchmark (offline by default)
  estimate      advise k and predict samples and cost from a measured success rate
  fake-jules    a local fake Jules API server (for trying --worker jules offline)
  help [cmd]    show help for a command

Options:
  --version     print the version
  -h, --help    show this help

Every command takes --json for scripts and --help for its options.
Start with:  maker demo    or    maker bench hanoi --disks 20
`;

const HELP: Readonly<Record<string, string>> = {
  bench: BENCH_HELP,
  estimate: ESTIMATE_HELP,
  'fake-jules': FAKE_JULES_HELP,
  run: RUN_HELP,
  resume: RUN_HELP,
  demo: RUN_HELP,
  status: STATUS_HELP,
  answer: STATUS_HELP,
};

/** Runs one CLI invocation and returns its exit status. Errors a person can fix exit 2 with a message, never a stack. */
export async function main(
  argv: readonly string[],
  rawIo: CliIo,
  signal?: AbortSignal,
): Promise<number> {
  // Every word the CLI prints passes the one redactor that knows the configured keys.
  const redact = makeRedactor(secretsOf(rawIo.env));
  const io: CliIo = {
    ...rawIo,
    stdout: (text) => rawIo.stdout(redact(text)),
    stderr: (text) => rawIo.stderr(redact(text)),
  };
  const [command, ...rest] = argv;
  try {
    switch (command) {
      case undefined:
      case '-h':
      case '--help':
        io.stdout(MAIN_HELP);
        return command === undefined ? 2 : 0;
      case 'help': {
        const topic = rest[0];
        io.stdout(topic !== undefined && HELP[topic] !== undefined ? HELP[topic] : MAIN_HELP);
        return 0;
      }
      case '--version':
      case '-v':
        io.stdout(`${VERSION}\n`);
        return 0;
      case 'bench':
        return await benchCommand(rest, io, signal);
      case 'estimate':
        return estimateCommand(rest, io);
      case 'fake-jules':
        return await fakeJulesCommand(rest, io, signal);
      case 'run':
      case 'resume':
      case 'demo':
        return await runCommand(command, rest, io, signal);
      case 'status':
        return await statusCommand(rest, io);
      case 'answer':
        return await answerCommand(rest, io);
      default:
        io.stderr(`maker: unknown command "${command}". Run \`maker --help\` for the list.\n`);
        return 2;
    }
  } catch (error) {
    if (error instanceof MakerError) {
      io.stderr(`maker: ${error.message}\n`);
      return error.code === 'usage' || error.code === 'config' ? 2 : 1;
    }
    throw error;
  }
}

/** Process entry: wires real I/O and Ctrl-C to cancellation. */
export async function runFromProcess(): Promise<void> {
  const controller = new AbortController();
  process.once('SIGINT', () => controller.abort(new Error('Interrupted (Ctrl-C).')));
  try {
    process.exitCode = await main(process.argv.slice(2), processIo(), controller.signal);
  } catch (error) {
    process.stderr.write(
      makeRedactor(secretsOf(process.env))(
        `maker: unexpected error: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`,
      ),
    );
    process.exitCode = 1;
  }
}
