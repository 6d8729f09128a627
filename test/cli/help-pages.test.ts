import { readFileSync } from 'node:fs';
import type { Command } from 'commander';
import { describe, expect, it } from 'vitest';
import { allHelpPages, commanderHelp } from '../../src/surfaces/cli/help-extract.js';
import { lightRequest, renderHelp } from '../../src/surfaces/cli/help-pages.js';
import type { CliIo } from '../../src/surfaces/cli/io.js';
import { main } from '../../src/surfaces/cli/main.js';
import { buildProgram } from '../../src/surfaces/cli/program.js';
import { maker } from '../helpers/cli.js';

/**
 * `maker --help`, `--version` and `<command> --help` are answered from pages the build rendered
 * (help-pages.ts), without commander. They must never drift from what commander prints: checked
 * here for every command, at several terminal widths, and for the built CLI against the sources.
 */

function quietIo(out: string[] = []): CliIo {
  return {
    stdout: (t) => void out.push(t),
    stderr: () => undefined,
    stderrIsTty: false,
    stdinIsTty: false,
    env: {},
    cwd: process.cwd(),
  };
}

/** Every command of the tree by its path ('' for maker itself). */
function commandsOf(program: Command): Map<string, Command> {
  const all = new Map<string, Command>();
  const visit = (command: Command, path: string) => {
    all.set(path, command);
    for (const sub of command.commands)
      visit(sub, path === '' ? sub.name() : `${path} ${sub.name()}`);
  };
  visit(program, '');
  return all;
}

// What the build carries, and the tree commander answers from.
const pages = allHelpPages();
const live = commandsOf(buildProgram({ io: quietIo() }, () => undefined));

describe('help pages rendered at build time', () => {
  it('cover every command and subcommand, and nothing else', () => {
    expect(Object.keys(pages).sort()).toEqual([...live.keys()].sort());
    expect(live.size).toBeGreaterThan(20);
    for (const path of ['', 'run', 'bench', 'bench hanoi', 'help'])
      expect(pages).toHaveProperty([path]);
  });

  it.each([undefined, 30, 50, 60, 79, 80, 100, 132, 200])(
    'equal what commander prints, for every command, at %s columns',
    (width) => {
      for (const [path, command] of live) {
        const page = pages[path];
        expect(page, path).toBeDefined();
        if (page === undefined) continue;
        expect({ path, text: renderHelp(page, width ?? 80) }).toEqual({
          path,
          text: commanderHelp(command, width),
        });
      }
    },
  );

  it('are what the built CLI prints, for every command, and the version is the package’s', async () => {
    const version = (JSON.parse(readFileSync('package.json', 'utf8')) as { version: string })
      .version;
    expect((await maker(['--version'])).stdout).toBe(`${version}\n`);
    expect((await maker(['-v'])).stdout).toBe(`${version}\n`);
    for (const path of live.keys()) {
      const words = path === '' ? [] : path.split(' ');
      const out: string[] = [];
      expect(await main([...words, '--help'], quietIo(out))).toBe(0);
      const built = await maker([...words, '--help']);
      expect({ path, text: built.stdout }).toEqual({ path, text: out.join('') });
    }
  });
});

describe('which words are answered from the pages', () => {
  it.each([
    [['--help'], { help: '' }],
    [['-h'], { help: '' }],
    [['help'], { help: '' }],
    [['--version'], { version: true }],
    [['-v'], { version: true }],
    [['run', '--help'], { help: 'run' }],
    [['bench', 'hanoi', '-h'], { help: 'bench hanoi' }],
    [['help', 'bench', 'hanoi'], { help: 'bench hanoi' }],
    [['help', '--help'], { help: 'help' }],
  ])('%j: %j', (argv, expected) => {
    expect(lightRequest(argv, pages)).toEqual(expected);
  });

  it.each([
    [[]],
    [['run']],
    [['--version', '--verbose']],
    [['--help', '--version']],
    [['nope', '--help']],
    [['help', 'nope']],
    [['run', '--dir', 'x', '--help']],
    [['run', 'idea', '--help']],
    [['', '--help']],
    [['help', 'run', '--help']],
  ])('%j: left to commander', (argv) => {
    expect(lightRequest(argv, pages)).toBeUndefined();
  });
});
