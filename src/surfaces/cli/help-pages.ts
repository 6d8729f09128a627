/**
 * Help pages without commander: `maker --help`, `maker --version` and `maker <command> --help` are
 * answered from pages rendered at build time (scripts/build.mjs, by help-extract.ts from the same
 * command definitions), so they load neither commander nor the definitions. A page keeps what
 * commander computed from the definitions (terms, descriptions, the column they align on) and leaves
 * only the wrapping to the terminal's width, done here as commander does it. The test
 * (test/cli/help-pages.test.ts) checks, for every command and several widths, that these pages
 * equal what commander prints.
 */

/** One command's help page, as commander lays it out, before wrapping. */
export interface HelpPage {
  /** The usage line's text after `Usage: `. */
  readonly usage: string;
  readonly description: string;
  /** The width terms are padded to (commander's `padWidth`). */
  readonly termWidth: number;
  /** Arguments, options, commands: each a title and its items (term, description). */
  readonly sections: readonly {
    readonly title: string;
    readonly items: readonly (readonly [string, string])[];
  }[];
  /** What follows the formatted page (notes, exit statuses), written as is. */
  readonly after: string;
}

/** Every page, by command path: '' (maker itself), 'run', 'bench hanoi', 'help'. */
export type HelpPages = Readonly<Record<string, HelpPage>>;

/** Below this many columns for a description, commander does not wrap. */
const MIN_WIDTH_TO_WRAP = 40;

/** Commander's `boxWrap`: each line wrapped at whitespace to `width`, existing breaks kept. */
function boxWrap(text: string, width: number): string {
  if (width < MIN_WIDTH_TO_WRAP) return text;
  const wrapped: string[] = [];
  for (const line of text.split(/\r\n|\n/)) {
    const chunks = line.match(/[\s]*[^\s]+/g);
    if (chunks === null) {
      wrapped.push('');
      continue;
    }
    let sum = [chunks[0]];
    let sumWidth = chunks[0].length;
    for (const chunk of chunks.slice(1)) {
      if (sumWidth + chunk.length <= width) {
        sum.push(chunk);
        sumWidth += chunk.length;
        continue;
      }
      wrapped.push(sum.join(''));
      const next = chunk.trimStart();
      sum = [next];
      sumWidth = next.length;
    }
    wrapped.push(sum.join(''));
  }
  return wrapped.join('\n');
}

/** Commander's `formatItem`: the term padded, the description wrapped beside it. */
function formatItem(term: string, termWidth: number, description: string, width: number): string {
  if (description === '') return `  ${term}`;
  const remaining = width - termWidth - 4;
  const text =
    remaining < MIN_WIDTH_TO_WRAP || /\n[^\S\r\n]/.test(description)
      ? description
      : boxWrap(description, remaining).replace(/\n/g, `\n${' '.repeat(termWidth + 2)}`);
  return `  ${term.padEnd(termWidth)}  ${text.replace(/\n/g, '\n  ')}`;
}

/** The page as commander prints it at `width` columns (80 when the output is not a terminal). */
export function renderHelp(page: HelpPage, width: number): string {
  const lines = [`Usage: ${page.usage}`, ''];
  if (page.description.length > 0) lines.push(boxWrap(page.description, width), '');
  for (const section of page.sections) {
    if (section.items.length === 0) continue;
    lines.push(
      section.title,
      ...section.items.map(([term, text]) => formatItem(term, page.termWidth, text, width)),
      '',
    );
  }
  return lines.join('\n') + page.after;
}

/** What the words ask for, when they ask only for a help page or the version; otherwise undefined. */
export type LightRequest = { readonly help: string } | { readonly version: true };

const HELP_WORDS = new Set(['--help', '-h']);

/** Whether the words may ask for help or the version (decided without the pages). */
export function mayBeLight(argv: readonly string[]): boolean {
  return (
    argv.some((w) => HELP_WORDS.has(w) || w === '--version' || w === '-v') || argv[0] === 'help'
  );
}

/** `maker --version` or `maker -v`, alone (with `--verbose`, the CLI answers). */
export function asksVersion(argv: readonly string[]): boolean {
  return argv.length === 1 && (argv[0] === '--version' || argv[0] === '-v');
}

/**
 * The page or the version the words ask for, in the forms commander answers with exactly that page:
 * `--version`, `-v`, `[command…] --help` (or `-h`), `help [command…]`. Anything else (an unknown
 * command, options besides help) is left to commander: undefined.
 */
export function lightRequest(argv: readonly string[], pages: HelpPages): LightRequest | undefined {
  if (asksVersion(argv)) return { version: true };
  const last = argv[argv.length - 1];
  const path =
    last !== undefined && HELP_WORDS.has(last)
      ? argv.slice(0, -1)
      : argv[0] === 'help'
        ? argv.slice(1)
        : undefined;
  if (path === undefined || path.some((w) => w === '' || w.startsWith('-'))) return undefined;
  const key = path.join(' ');
  return Object.hasOwn(pages, key) ? { help: key } : undefined;
}
