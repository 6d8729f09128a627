import type { Command } from 'commander';
import { renderHelp, type HelpPage, type HelpPages } from './help-pages.js';
import { buildProgram } from './program.js';

/**
 * What commander prints for a command's `--help` at `width` columns (undefined: not a terminal,
 * 80), captured from its own output, the text after the page (notes, exit statuses) included.
 */
export function commanderHelp(command: Command, width: number | undefined): string {
  let text = '';
  const saved = command.configureOutput();
  command.configureOutput({
    ...saved,
    writeOut: (s) => (text += s),
    getOutHelpWidth: () => width as number,
  });
  try {
    command.outputHelp();
  } finally {
    command.configureOutput(saved);
  }
  return text;
}

/** One command's page, laid out by commander's own help helper, before wrapping. */
function pageOf(command: Command): HelpPage {
  const helper = command.createHelp();
  helper.prepareContext({ helpWidth: 80 });
  const sections: { title: string; items: [string, string][] }[] = [
    {
      title: 'Arguments:',
      items: helper
        .visibleArguments(command)
        .map((a) => [helper.argumentTerm(a), helper.argumentDescription(a)]),
    },
  ];
  const options = helper.groupItems(
    [...command.options],
    helper.visibleOptions(command),
    (o) => o.helpGroupHeading ?? 'Options:',
  );
  for (const [title, list] of options)
    sections.push({
      title,
      items: list.map((o) => [helper.optionTerm(o), helper.optionDescription(o)]),
    });
  if (helper.showGlobalOptions)
    sections.push({
      title: 'Global Options:',
      items: helper
        .visibleGlobalOptions(command)
        .map((o) => [helper.optionTerm(o), helper.optionDescription(o)]),
    });
  const commands = helper.groupItems(
    [...command.commands],
    helper.visibleCommands(command),
    (c) => c.helpGroup() || 'Commands:',
  );
  for (const [title, list] of commands)
    sections.push({
      title,
      items: list.map((c) => [helper.subcommandTerm(c), helper.subcommandDescription(c)]),
    });
  const page: HelpPage = {
    usage: helper.commandUsage(command),
    description: helper.commandDescription(command),
    termWidth: helper.padWidth(command, helper),
    sections,
    after: '',
  };
  // What commander writes after the page: its help text events (notes, exit statuses).
  const full = commanderHelp(command, 80);
  const formatted = renderHelp(page, 80);
  if (!full.startsWith(formatted))
    throw new Error(`maker ${command.name()} --help: the page differs from commander's.`);
  return { ...page, after: full.slice(formatted.length) };
}

/**
 * Every command's page, by command path ('' for maker itself), walking the whole tree. Each is
 * checked against commander's own output at several widths: a difference fails (the build, the test).
 */
export function helpPages(program: Command): HelpPages {
  const pages: Record<string, HelpPage> = {};
  const visit = (command: Command, path: string) => {
    const page = pageOf(command);
    for (const width of [undefined, 60, 100, 160])
      if (renderHelp(page, width ?? 80) !== commanderHelp(command, width))
        throw new Error(`maker ${path} --help at ${width ?? 80} columns differs from commander's.`);
    pages[path] = page;
    for (const sub of command.commands)
      visit(sub, path === '' ? sub.name() : `${path} ${sub.name()}`);
  };
  visit(program, '');
  return pages;
}

/** Every page of maker's command tree: what the build carries (scripts/build.mjs). */
export function allHelpPages(): HelpPages {
  const io = {
    stdout: () => undefined,
    stderr: () => undefined,
    stderrIsTty: false,
    stdinIsTty: false,
    env: {},
    cwd: '/',
  };
  return helpPages(buildProgram({ io }, () => undefined));
}
