import { execFile } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { join, relative, resolve } from 'node:path';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';

const exec = promisify(execFile);
const CLI = join(process.cwd(), 'dist', 'maker.js');
const README = readFileSync('README.md', 'utf8');

const help = async (words: readonly string[]) =>
  (await exec(process.execPath, [CLI, ...words, '--help'])).stdout;

/** A help page's section (`Commands:`, `Options:`) as its lines. */
function section(page: string, title: string): string[] {
  return (new RegExp(`\\n${title}:\\n([\\s\\S]*?)(\\n\\n|$)`).exec(page)?.[1] ?? '').split('\n');
}

/** Each command `maker --help` lists (groups opened: `bench hanoi`…), with the long flags its page lists. */
async function fromHelp(): Promise<Map<string, string[]>> {
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

/** The README's command reference: the code block after "## Commands", one entry per `maker …` line. */
function fromReadme(): Map<string, string[]> {
  const block = /## Commands\n[\s\S]*?```\n([\s\S]*?)```/.exec(README)?.[1] ?? '';
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

describe('the README', () => {
  it('lists every command and option that --help shows, and nothing else', async () => {
    const helpCommands = await fromHelp();
    const readme = fromReadme();
    expect([...readme.keys()].sort()).toEqual([...helpCommands.keys()].sort());
    for (const [command, flags] of helpCommands)
      expect({ command, flags: readme.get(command) }).toEqual({ command, flags });
  });

  it('lists the exit statuses', () => {
    for (const status of [0, 1, 2, 4, 130])
      expect(README).toMatch(new RegExp(`^\\| ${status} +\\| \\w`, 'm'));
  });

  it('links only to the web or to files inside the repository', () => {
    const root = process.cwd();
    for (const [, target] of README.matchAll(/\]\(([^)\s]+)\)/g)) {
      if (/^https?:\/\//.test(target as string)) continue;
      const path = resolve(root, (target as string).split('#')[0] as string);
      expect(relative(root, path).startsWith('..'), target).toBe(false);
      expect(existsSync(path), target).toBe(true);
    }
    expect(README).not.toMatch(/\.\.\/shared|\/work\//);
  });
});
