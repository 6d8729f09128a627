import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { maker } from '../helpers/cli.js';

const README = readFileSync('README.md', 'utf8');
/** The command reference: docs/commands.md (the README links to it). */
const COMMANDS = readFileSync(join('docs', 'commands.md'), 'utf8');
/** The pages the README leads to. */
const DOCS = readdirSync('docs')
  .filter((name) => name.endsWith('.md'))
  .map((name) => join('docs', name));

const help = async (words: readonly string[]) => (await maker([...words, '--help'])).stdout;

/** A help page's section (`Commands:`, `Options:`) as its lines. */
function section(page: string, title: string): string[] {
  return (new RegExp(`\\n${title}:\\n([\\s\\S]*?)(\\n\\n|$)`).exec(page)?.[1] ?? '').split('\n');
}

/** Each command `maker --help` lists (groups opened: `bench hanoi`…), with the long flags its page lists. */
async function readHelp(): Promise<Map<string, string[]>> {
  const commands = new Map<string, string[]>();
  const visit = async (words: string[]) => {
    const page = await help(words);
    const subcommands = section(page, 'Commands')
      .map((line) => /^ {2}([a-z][\w-]*)/.exec(line)?.[1])
      .filter((name): name is string => name !== undefined);
    if (words.length > 0 && subcommands.length === 0) {
      const flags = section(page, 'Options')
        .map((line) => /^ {2}(?:-\w, )?(--[\w-]+)/.exec(line)?.[1])
        .filter((f): f is string => f !== undefined && f !== '--help');
      commands.set(words.join(' '), flags.sort());
    }
    for (const name of subcommands)
      if (name === 'help') commands.set('help', []);
      else await visit([...words, name]);
  };
  await visit([]);
  return commands;
}

let helpPages: Promise<Map<string, string[]>> | undefined;
/** The help pages, read once for the tests that need them. */
const fromHelp = () => (helpPages ??= readHelp());

/** The command reference: the code block after "## Reference" in docs/commands.md, one entry per `maker …` line. */
function fromReference(): Map<string, string[]> {
  const block = /## Reference\n[\s\S]*?```\n([\s\S]*?)```/.exec(COMMANDS)?.[1] ?? '';
  const commands = new Map<string, string[]>();
  let current: string | undefined;
  for (const line of block.split('\n')) {
    if (line.startsWith('maker ')) {
      const words: string[] = [];
      for (const word of line.slice('maker '.length).split(' ')) {
        if (!/^[a-z][\w-]*$/.test(word)) break;
        words.push(word);
      }
      current = words.join(' ');
      commands.set(current, []);
    }
    if (current === undefined) continue;
    const flags = commands.get(current) as string[];
    for (const m of line.matchAll(/(?<![\w-])(--[a-z][\w-]*)/g))
      if (!flags.includes(m[1] as string)) flags.push(m[1] as string);
  }
  for (const flags of commands.values()) flags.sort();
  return commands;
}

/** Each `maker …` line of the README's shell blocks (`npx maker` too): its leading words and its long flags. */
function readmeCommands(): { line: string; words: string[]; flags: string[] }[] {
  const blocks = [...README.matchAll(/```sh\n([\s\S]*?)```/g)].map((m) => m[1] as string);
  return blocks.flatMap((block) =>
    block.split('\n').flatMap((line) => {
      const call = /^(?:npx )?maker ((?:[a-z][\w-]* )*)(.*)$/.exec(
        `${line.split(' #')[0] as string} `,
      );
      if (call === null) return [];
      const words = (call[1] as string).trim().split(' ');
      const flags = [...(call[2] as string).matchAll(/(?<![\w-])(--[a-z][\w-]*)/g)].map(
        (m) => m[1] as string,
      );
      return [{ line, words, flags }];
    }),
  );
}

describe('the command reference', () => {
  it('lists every command and option that --help shows, and nothing else', async () => {
    const helpCommands = await fromHelp();
    const reference = fromReference();
    expect([...reference.keys()].sort()).toEqual([...helpCommands.keys()].sort());
    for (const [command, flags] of helpCommands)
      expect({ command, flags: reference.get(command) }).toEqual({ command, flags });
  });

  it('lists the exit statuses', () => {
    for (const status of [0, 1, 2, 4, 5, 75, 130])
      expect(COMMANDS).toMatch(new RegExp(`^\\| ${status} +\\| [\\w\\x60]`, 'm'));
  });
});

describe('the README', () => {
  it('is short: what MAKER is, the two commands, a quick start per kind of model access, where next', () => {
    expect(README.split('\n').length).toBeLessThan(200);
    expect(README).toMatch(/```sh\nnpm ci && npx maker demo .*\nnpm test /);
    for (const access of ['API key', 'Vertex AI', 'signed-in Gemini CLI'])
      expect(README).toMatch(new RegExp(`^### With .*${access}$`, 'm'));
  });

  it('runs only commands and options that --help shows', async () => {
    const helpCommands = await fromHelp();
    const calls = readmeCommands();
    expect(calls.length).toBeGreaterThan(5);
    for (const { line, words, flags } of calls) {
      // The command is the longest run of leading words that names one; the rest are its arguments.
      const command = words
        .map((_, n) => words.slice(0, words.length - n).join(' '))
        .find((prefix) => helpCommands.has(prefix));
      expect(command, line).toBeDefined();
      for (const flag of flags) expect(helpCommands.get(command as string), line).toContain(flag);
    }
  });

  it('leads to every page in docs/', () => {
    for (const page of DOCS) expect(README, page).toContain(`](${page})`);
  });

  it('and its pages link only to the web or to files inside the repository', () => {
    const root = process.cwd();
    for (const file of ['README.md', ...DOCS]) {
      const text = readFileSync(file, 'utf8');
      for (const [, target] of text.matchAll(/\]\(([^)\s]+)\)/g)) {
        if (/^https?:\/\//.test(target as string)) continue;
        const path = resolve(root, dirname(file), (target as string).split('#')[0] as string);
        expect(relative(root, path).startsWith('..'), `${file}: ${target}`).toBe(false);
        expect(existsSync(path), `${file}: ${target}`).toBe(true);
      }
      expect(text, file).not.toMatch(/\.\.\/shared|\/work\//);
    }
  });
});
