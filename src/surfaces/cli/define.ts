import { Command, Option } from 'commander';
import { UsageError } from '../../core/errors.js';
import type { CliIo } from './io.js';
import { schemaOf, type ValueKind } from './values.js';

/**
 * One definition per command: its arguments and options (each with its help and the zod value kind
 * that validates it). The command's help page, usage line, parsing, validation and error messages
 * are all derived from it by {@link toCommander}.
 */

/** An option: a switch (`flag`), a value (`option`) or a repeatable value (`list`). */
export interface OptionSpec<T> {
  /**
   * Commander flags, e.g. `--max-depth <n>`; the key it is defined under must be its camel-case
   * name (`maxDepth`; `reference` for `--no-reference`, which reads false when given).
   */
  readonly flags: string;
  readonly help: string;
  readonly kind?: ValueKind<unknown>;
  readonly repeatable?: boolean;
  /** The command refuses to run without it: shown without brackets in the usage line. */
  readonly required?: boolean;
  /** For other processes of maker itself, not for people: left out of the help and usage line. */
  readonly internal?: boolean;
  /** Only for typing: the value the command receives. */
  readonly _value?: T;
}

export function flag(flags: string, help: string): OptionSpec<boolean> {
  return { flags, help };
}

export function option<T>(flags: string, help: string, kind: ValueKind<T>): OptionSpec<T> {
  return { flags, help, kind };
}

/** The same option, marked as one the command cannot run without (its run still checks it). */
export function required<T>(spec: OptionSpec<T>): OptionSpec<T> {
  return { ...spec, required: true };
}

export function list<T>(flags: string, help: string, kind: ValueKind<T>): OptionSpec<T[]> {
  return { flags, help, kind, repeatable: true };
}

export interface ArgSpec {
  readonly name: string;
  readonly help: string;
  readonly required?: boolean;
  /** Takes every remaining argument. */
  readonly variadic?: boolean;
  /** The message when a required argument is missing (default: names it). */
  readonly missing?: string;
}

export type OptionSpecs = Readonly<Record<string, OptionSpec<unknown>>>;
export type Values<O extends OptionSpecs> = {
  [K in keyof O]?: O[K] extends OptionSpec<infer T> ? T : never;
};

export interface CliContext {
  readonly io: CliIo;
  readonly signal?: AbortSignal | undefined;
}

export interface CommandSpec<O extends OptionSpecs> {
  readonly name: string;
  /** One line, for the list of commands. */
  readonly summary: string;
  /** The command's page, between its usage line and its arguments. */
  readonly description?: string;
  readonly args?: readonly ArgSpec[];
  readonly options: O;
  /** Text after the options (environment, examples). */
  readonly notes?: string;
  /** Exit statuses and their meaning for this command. */
  readonly exits: readonly (readonly [number, string])[];
  /** The message when more arguments are given than `args` takes. */
  readonly excess?: string;
}

/** What a command's run receives: its arguments and its options, validated. */
export interface Input<O extends OptionSpecs> {
  readonly args: readonly string[];
  readonly options: Values<O>;
}

/** The input of a definition's run (`InputOf<typeof statusCommand>`), for its run module. */
export type InputOf<C> = C extends CommandSpec<infer O> ? Input<O> : never;

/** What carries a command out: the `run` of the module its entry loads. Resolves the exit status. */
export interface CommandRun<O extends OptionSpecs> {
  readonly run: (input: Input<O>, ctx: CliContext) => Promise<number> | number;
}

/** The run of a definition (`RunOf<typeof estimateCommand>`), for a run written beside it. */
export type RunOf<C> = C extends CommandSpec<infer O> ? CommandRun<O> : never;

/**
 * A command: its definition (options and help, light) paired with the loader of its run, called
 * only when the command runs, so `maker --help` loads no run and a definition never imports its run.
 */
export interface CommandEntry<O extends OptionSpecs> {
  readonly define: CommandSpec<O>;
  readonly load: () => Promise<CommandRun<O>>;
}

/** Pairs a definition with its loader (`() => import('./commands/x-run.js')`), checking their types agree. */
export function command<O extends OptionSpecs>(
  define: CommandSpec<O>,
  load: () => Promise<CommandRun<O>>,
): CommandEntry<O> {
  return { define, load };
}

/** Helps type inference: `defineCommand({...})` keeps the option keys. */
export function defineCommand<O extends OptionSpecs>(spec: CommandSpec<O>): CommandSpec<O> {
  return spec;
}

/** A group of subcommands (`maker bench hanoi`): its own help; its commands are listed in program.ts. */
export interface GroupSpec {
  readonly name: string;
  readonly summary: string;
  readonly description?: string;
}

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- a list of commands with different option types
export type AnyCommandSpec = CommandSpec<any>;
// eslint-disable-next-line @typescript-eslint/no-explicit-any -- a list of commands with different option types
export type AnyCommandEntry = CommandEntry<any>;

const HELP_FLAGS = '-h, --help';

/** How a command is listed in its parent's help: its name and arguments (`run <idea>`). */
const TERMS = new WeakMap<Command, string>();

export function setTerm(command: Command, term: string): Command {
  TERMS.set(command, term);
  return command;
}

/** Where commander writes, and the settings every command shares. */
export function configure(command: Command, io: CliIo): Command {
  return command
    .exitOverride()
    .configureOutput({ writeOut: io.stdout, writeErr: io.stderr, outputError: () => undefined })
    .helpOption(HELP_FLAGS, 'show this help')
    .configureHelp({ subcommandTerm: (c) => TERMS.get(c) ?? c.name() })
    .helpCommand(false)
    .allowExcessArguments(true)
    .showSuggestionAfterError(true);
}

/** The full usage line: every argument and every option, wrapped under the command's name. */
export function usageLine(path: string, spec: AnyCommandSpec): string {
  const parts = [
    ...argTerms(spec),
    ...Object.values(spec.options as OptionSpecs)
      .filter((o) => o.internal !== true)
      .map((o) => (o.required === true ? o.flags : `[${o.flags}]`)),
  ];
  const lead = `Usage: maker ${path} `;
  const lines: string[] = [];
  let line = '';
  for (const part of parts) {
    if (line !== '' && lead.length + line.length + part.length + 1 > 80) {
      lines.push(line);
      line = '';
    }
    line = line === '' ? part : `${line} ${part}`;
  }
  if (line !== '') lines.push(line);
  return lines.join(`\n${' '.repeat(lead.length)}`);
}

function argTerms(spec: AnyCommandSpec): string[] {
  return (spec.args ?? []).map((a) => {
    const name = `${a.name}${a.variadic === true ? '...' : ''}`;
    return a.required === true ? `<${name}>` : `[${name}]`;
  });
}

export function exitText(exits: readonly (readonly [number, string])[]): string {
  return `Exit status:\n${exits.map(([code, meaning]) => `  ${String(code).padEnd(4)} ${meaning}`).join('\n')}\n`;
}

/**
 * The commander command for an entry: it parses, checks every option against its value kind
 * (reporting every bad one at once, as a {@link UsageError}), checks the arguments, then loads
 * the entry's run and runs it.
 * `done` receives the exit status.
 */
export function toCommander(
  entry: AnyCommandEntry,
  parentPath: string,
  ctx: CliContext,
  done: (status: number) => void,
): Command {
  const spec = entry.define;
  const path = parentPath === '' ? spec.name : `${parentPath} ${spec.name}`;
  const command = configure(new Command(spec.name), ctx.io)
    .summary(spec.summary)
    .description(spec.description ?? spec.summary)
    .usage(usageLine(path, spec));
  setTerm(command, [spec.name, ...argTerms(spec)].join(' '));
  for (const arg of spec.args ?? [])
    // Always optional for commander: a missing one gets this command's own message below.
    command.argument(`[${arg.name}${arg.variadic === true ? '...' : ''}]`, arg.help);
  const specs = spec.options as OptionSpecs;
  for (const [key, optionSpec] of Object.entries(specs)) {
    const o = new Option(optionSpec.flags, optionSpec.help);
    if (o.attributeName() !== key)
      throw new Error(`Option ${optionSpec.flags} must be defined as "${o.attributeName()}".`);
    if (optionSpec.internal === true) o.hideHelp();
    if (optionSpec.repeatable === true)
      o.argParser((value: string, previous: string[] | undefined) => [...(previous ?? []), value]);
    command.addOption(o);
  }
  const notes = [spec.notes, exitText(spec.exits)].filter(Boolean).join('\n');
  command.addHelpText('after', `\n${notes}`);
  command.action(async (...received: unknown[]) => {
    const self = received[received.length - 1] as Command;
    const options = await validate(path, specs, self.opts());
    const args = checkArgs(path, spec, self.args);
    done(await (await entry.load()).run({ args, options }, ctx));
  });
  return command;
}

/** Every option's raw text through its value kind; every problem reported at once. */
async function validate(
  path: string,
  specs: OptionSpecs,
  raw: Record<string, unknown>,
): Promise<Record<string, unknown>> {
  const values: Record<string, unknown> = {};
  const problems: string[] = [];
  for (const [key, spec] of Object.entries(specs)) {
    const given = raw[key];
    if (given === undefined) continue;
    const name = spec.flags.split(/[ ,]/).find((f) => f.startsWith('--')) ?? spec.flags;
    if (spec.kind === undefined) {
      // A `--no-x` switch reads true until given; only its use is reported (as false).
      if (!(new Option(spec.flags).negate && given === true)) values[key] = given === true;
      continue;
    }
    const schema = await schemaOf(spec.kind);
    const parse = (text: string) => {
      const parsed = schema.safeParse(text);
      if (parsed?.success === true) return parsed.data;
      problems.push(`${name} must be ${spec.kind?.expected} (got ${JSON.stringify(text)}).`);
      return undefined;
    };
    // Commander hands over the raw text (a list of texts for a repeatable option).
    values[key] = Array.isArray(given)
      ? (given as string[]).map((g) => parse(g))
      : parse(given as string);
  }
  if (problems.length > 0)
    throw new UsageError(`${problems.join('\n')}\nSee \`maker ${path} --help\`.`);
  return values;
}

function checkArgs(path: string, spec: AnyCommandSpec, given: readonly string[]): string[] {
  const args = spec.args ?? [];
  const variadic = args.some((a) => a.variadic === true);
  if (!variadic && given.length > args.length)
    throw new UsageError(
      spec.excess ??
        `Unexpected argument ${JSON.stringify(given[args.length])}. See \`maker ${path} --help\`.`,
    );
  for (const [i, arg] of args.entries()) {
    const present = arg.variadic === true ? given.length > i : given[i] !== undefined;
    if (arg.required === true && (!present || (given[i] ?? '').trim() === ''))
      throw new UsageError(
        arg.missing ?? `maker ${path} needs <${arg.name}>. See \`maker ${path} --help\`.`,
      );
  }
  return [...given];
}
