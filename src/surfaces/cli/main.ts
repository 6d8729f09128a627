import type { Command } from 'commander';
import { CommanderError } from 'commander';
import { makeRedactor, MakerError } from '../../core/errors.js';
import { StopError } from '../../core/stops.js';
import { isSystemError, systemErrorMessage } from '../../app/system-errors.js';
import { secretsOf } from '../../app/env.js';
import { toolVersions } from '../../app/tool-versions.js';
import { forTerminal, ignoreClosedReader, processIo, type CliIo } from './io.js';
import { buildProgram } from './program.js';
import { VERSION } from './version.js';

/** The command path the arguments name (`bench hanoi`), for pointing at its help. */
function commandPath(program: Command, argv: readonly string[]): string {
  const path: string[] = [];
  let at = program;
  for (const word of argv) {
    const next = at.commands.find((c) => c.name() === word);
    if (next === undefined) break;
    path.push(word);
    at = next;
  }
  return path.join(' ');
}

/** The command the path names (`bench hanoi`), or the program itself. */
function commandAt(program: Command, path: string): Command {
  let at = program;
  for (const word of path === '' ? [] : path.split(' '))
    at = at.commands.find((c) => c.name() === word) ?? at;
  return at;
}

/**
 * Every option the words give that the command does not know, in order (commander stops at the
 * first). A known option's value is skipped, so `--dir --x` reads `--x` as the directory.
 */
export function unknownOptions(command: Command, words: readonly string[]): string[] {
  const known = new Map<string, boolean>();
  for (const o of [...command.options, command.createOption('-h, --help')]) {
    const takesValue = o.required || o.optional;
    if (o.long !== undefined) known.set(o.long, takesValue);
    if (o.short !== undefined) known.set(o.short, takesValue);
  }
  const unknown: string[] = [];
  for (let i = 0; i < words.length; i++) {
    const word = words[i] as string;
    if (word === '--') break;
    if (!word.startsWith('-') || word === '-') continue;
    const name = word.split('=')[0] as string;
    const takesValue = known.get(name);
    if (takesValue === undefined) unknown.push(name);
    else if (takesValue && !word.includes('=')) i++;
  }
  return unknown;
}

/** The closest known long option within two edits (and under half the name's letters). */
function suggestion(command: Command, name: string): string | undefined {
  let best: { option: string; distance: number } | undefined;
  for (const o of command.options) {
    if (o.long === undefined || o.hidden) continue;
    const bare = name.replace(/^-+/, '');
    const distance = editDistance(bare, o.long.replace(/^-+/, ''));
    if (
      distance <= 2 &&
      distance < bare.length / 2 &&
      (best === undefined || distance < best.distance)
    )
      best = { option: o.long, distance };
  }
  return best?.option;
}

function editDistance(a: string, b: string): number {
  let row = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    const next = [i];
    for (let j = 1; j <= b.length; j++)
      next[j] = Math.min(
        (row[j] as number) + 1,
        (next[j - 1] as number) + 1,
        (row[j - 1] as number) + (a[i - 1] === b[j - 1] ? 0 : 1),
      );
    row = next;
  }
  return row[b.length] as number;
}

/** Commander's complaint, as maker says it: every unknown option named, not only the first. */
function usageMessage(
  error: CommanderError,
  path: string,
  program: Command,
  argv: readonly string[],
): string {
  const text = error.message.replace(/^error: /, '');
  const see = `See \`maker ${path === '' ? '' : `${path} `}--help\`.`;
  if (error.code === 'commander.unknownOption') {
    const command = commandAt(program, path);
    const words = argv.slice(path === '' ? 0 : path.split(' ').length);
    const names = unknownOptions(command, words);
    if (names.length > 0) {
      const described = names.map((n) => {
        const near = suggestion(command, n);
        return near === undefined ? `'${n}'` : `'${n}' (did you mean ${near}?)`;
      });
      return `Unknown option${names.length > 1 ? 's' : ''} ${described.join(', ')}. ${see}`;
    }
  }
  if (error.code === 'commander.unknownCommand')
    return `${text.replace(/^unknown command '([^']*)'\.?/, 'unknown command "$1".')} Run \`maker ${path === '' ? '' : `${path} `}--help\` for the list.`;
  const said = text
    .replace(/^option '([^']+)' argument missing$/, "option '$1' needs a value.")
    .replace(/^unknown option/, 'Unknown option');
  return `${said}${/[.)]$/.test(said) ? '' : '.'} See \`maker ${path === '' ? '' : `${path} `}--help\`.`;
}

/**
 * Runs one CLI invocation and returns its exit status. A usage error exits 2 with a message, never
 * a stack; an interrupt exits 130. Anything else unexpected is thrown, for {@link runFromProcess}.
 */
export async function main(
  argv: readonly string[],
  rawIo: CliIo,
  signal?: AbortSignal,
): Promise<number> {
  // Every word the CLI prints passes the one redactor that knows the process's keys: the configured
  // ones, and those found later (a command's settings are read over this list, and add to it).
  const secrets = secretsOf(rawIo.env, rawIo.secrets ?? []);
  const redact = makeRedactor(secrets);
  const io: CliIo = {
    ...rawIo,
    secrets,
    stdout: (text) => rawIo.stdout(redact(text)),
    stderr: (text) => rawIo.stderr(redact(text)),
  };
  let status = 0;
  const program = buildProgram({ io, signal }, (s) => (status = s));
  if (argv.length === 0) {
    program.outputHelp({ error: true });
    return 2;
  }
  if (isVerboseVersion(argv)) {
    const tools = await toolVersions();
    io.stdout(`maker ${VERSION}\nnode: ${tools.node}\ngit: ${tools.git}\n`);
    return 0;
  }
  try {
    await program.parseAsync([...argv], { from: 'user' });
    return status;
  } catch (error) {
    if (error instanceof CommanderError) {
      if (error.code === 'commander.helpDisplayed' || error.code === 'commander.version') return 0;
      if (error.code === 'commander.help') return error.exitCode === 0 ? 0 : 2;
      io.stderr(`maker: ${usageMessage(error, commandPath(program, argv), program, argv)}\n`);
      return 2;
    }
    if (signal?.aborted === true || (error instanceof MakerError && error.code === 'aborted')) {
      // An interrupted start says what it left and what to do.
      const left =
        error instanceof MakerError && error.name === 'InterruptedStart' ? ` ${error.message}` : '';
      io.stderr(`maker: interrupted.${left}\n`);
      return 130;
    }
    if (error instanceof StopError) {
      io.stderr(`maker: ${error.message}\n`);
      return error.exit;
    }
    if (error instanceof MakerError) {
      // A message that already names the command ("maker run needs an idea") is not prefixed again.
      io.stderr(`${/^maker\b/.test(error.message) ? '' : 'maker: '}${error.message}\n`);
      return error.code === 'usage' || error.code === 'config' ? 2 : 1;
    }
    if (isSystemError(error)) {
      // The machine refused (permissions, disk full…): the person's to fix, not a bug.
      io.stderr(
        `maker: ${systemErrorMessage(error, 'run maker resume (or the same command again if no run started)')}\n`,
      );
      return 1;
    }
    throw error;
  }
}

/** `maker --version --verbose` (either order, `-v` too). */
function isVerboseVersion(argv: readonly string[]): boolean {
  return (
    argv.length === 2 &&
    argv.includes('--verbose') &&
    (argv.includes('--version') || argv.includes('-v'))
  );
}

/** Process entry: wires real I/O and Ctrl-C to cancellation. */
export async function runFromProcess(): Promise<void> {
  const controller = new AbortController();
  // A reader that went away (`maker help run | head -1`) ends the output, not the command.
  for (const stream of [process.stdout, process.stderr]) stream.on('error', ignoreClosedReader);
  process.once('SIGINT', () => controller.abort(new Error('Interrupted (Ctrl-C).')));
  // The process's keys, shared with `main`: a crash's message is redacted of those found later too.
  const secrets = secretsOf(process.env);
  try {
    process.exitCode = await main(
      process.argv.slice(2),
      { ...processIo(), secrets },
      controller.signal,
    );
  } catch (error) {
    process.stderr.write(
      forTerminal(
        makeRedactor(secrets)(
          `maker: unexpected error — this is a bug in maker ${VERSION}. Please report it as an issue on the project's repository, with the command you ran and the text below.\n${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`,
        ),
      ),
    );
    process.exitCode = 1;
  }
}
