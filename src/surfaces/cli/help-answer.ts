import { makeRedactor } from '../../core/errors.js';
import { secretsOf } from '../../app/env.js';
import { asksVersion, lightRequest, mayBeLight, renderHelp } from './help-pages.js';
import { forTerminal, ignoreClosedReader } from './io.js';
import { VERSION } from './version.js';

/**
 * Answers `maker --help`, `maker --version` and `maker <command> --help` (or `maker help
 * <command>`) from the pages the build rendered, without loading commander or any command: true
 * when it did, and the process is done (exit status 0); false when the words ask for anything
 * else, for the full CLI to answer.
 */
export async function answerLight(argv: readonly string[]): Promise<boolean> {
  let text: string;
  if (asksVersion(argv)) text = `${VERSION}\n`;
  else {
    if (!mayBeLight(argv)) return false;
    // The pages are loaded only now: other commands do not parse them.
    const { HELP_PAGES } = await import('./help-data.js');
    if (HELP_PAGES === undefined) return false;
    const request = lightRequest(argv, HELP_PAGES);
    const page = request !== undefined && 'help' in request ? HELP_PAGES[request.help] : undefined;
    if (page === undefined) return false;
    // As commander: the terminal's width, or 80 columns when the output is not a terminal.
    const width = process.stdout.isTTY ? process.stdout.columns : undefined;
    text = renderHelp(page, width ?? 80);
  }
  for (const stream of [process.stdout, process.stderr]) stream.on('error', ignoreClosedReader);
  // The same redactor as every other output of the CLI (see main.ts).
  process.stdout.write(forTerminal(makeRedactor(secretsOf(process.env))(text)));
  process.exitCode = 0;
  return true;
}
