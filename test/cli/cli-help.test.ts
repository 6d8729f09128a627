import { describe, expect, it } from 'vitest';
import { maker } from '../helpers/cli.js';

const COMMANDS = [
  'run',
  'resume',
  'status',
  'answer',
  'view',
  'report',
  'demo',
  'estimate',
  'fake-jules',
  'bench hanoi',
  'bench product',
  'bench tree',
  'bench jules',
  'bench github',
  'bench mcp-start',
  'bench view',
];

/** The long flags a help page's Options section lists (help itself left out). */
function optionsOf(help: string): string[] {
  const section = /\nOptions:\n([\s\S]*?)\n\n/.exec(help)?.[1] ?? '';
  return [...section.matchAll(/^ {2}(?:-\w, )?(--[\w-]+)/gm)]
    .map((m) => m[1] as string)
    .filter((f) => f !== '--help');
}

describe('maker <command> --help', () => {
  it.each(COMMANDS)('%s has its own page, the same through `maker help`', async (command) => {
    const words = command.split(' ');
    const page = await maker([...words, '--help']);
    expect(page.code).toBe(0);
    expect(page.stdout.startsWith(`Usage: maker ${command} `)).toBe(true);
    expect((await maker(['help', ...words])).stdout).toBe(page.stdout);
    // Its usage line names every option the page lists, and the page lists the exit statuses.
    const usage = page.stdout.slice(0, page.stdout.indexOf('\n\n'));
    const options = optionsOf(page.stdout);
    expect(options.length).toBeGreaterThan(0);
    for (const flag of options) expect(usage).toMatch(new RegExp(`[[ ]${flag}[ \\]]`));
    // Every command lists its exit statuses (maker view, which serves until interrupted, has no 0).
    expect(page.stdout).toMatch(
      command === 'view' ? /\nExit status:\n {2}1 / : /\nExit status:\n {2}0 /,
    );
    expect(page.stdout).toMatch(/^ {2}2 +usage error/m);
  });

  it('lists every command and every exit status, 130 for an interrupt included', async () => {
    const { code, stdout } = await maker(['--help']);
    expect(code).toBe(0);
    for (const command of [
      'run <idea>',
      'resume',
      'status',
      'answer',
      'view',
      'report',
      'demo',
      'bench',
      'estimate',
      'fake-jules',
    ])
      expect(stdout).toContain(`\n  ${command}`);
    for (const status of [0, 1, 2, 4, 130])
      expect(stdout).toMatch(new RegExp(`^ {2}${status} +\\w`, 'm'));
  });

  it('shows the options a command cannot do without outside brackets', async () => {
    const estimate = await maker(['estimate', '--help']);
    expect(estimate.stdout).toMatch(
      /^Usage: maker estimate --p <p> --steps <s> --target <t> \[--v <v>\]/,
    );
    const fakeJules = await maker(['fake-jules', '--help']);
    expect(fakeJules.stdout).toMatch(
      /^Usage: maker fake-jules --source <spec> \[--agent <agent>\]/,
    );
  });

  it('resume, demo and answer each print their own page', async () => {
    const [resume, demo, answer, run, status] = await Promise.all(
      ['resume', 'demo', 'answer', 'run', 'status'].map((c) => maker([c, '--help'])),
    );
    expect(resume?.stdout).toMatch(/^Usage: maker resume /);
    expect(demo?.stdout).toMatch(/^Usage: maker demo /);
    expect(answer?.stdout).toMatch(/^Usage: maker answer <questionId> <answer\.\.\.>/);
    expect(new Set([resume, demo, answer, run, status].map((r) => r?.stdout)).size).toBe(5);
  });
});

describe('usage errors', () => {
  it.each([
    [['run', 'x', '--k', '-1'], /^maker: --k must be a whole number from 1 to 20 \(got "-1"\)\.$/m],
    [['run', 'x', '--k=-1'], /--k must be a whole number from 1 to 20 \(got "-1"\)/],
    [
      ['run', 'x', '--k', '2.5', '--seed', 'abc'],
      /--k must be .*\n--seed must be a whole number ≥ 0 \(got "abc"\)/,
    ],
    [
      ['run', 'x', '--worker', 'gpt'],
      /--worker must be gemini, jules, jules-fake or sim \(got "gpt"\)/,
    ],
    [['run', 'x', '--dir'], /option '--dir <dir>' needs a value\. See `maker run --help`/],
    [['run', 'x', '--bogus'], /Unknown option '--bogus'\. See `maker run --help`/],
    [
      ['run', 'x', '--workr', 'sim', '--json', '--wroker', 'sim'],
      /^maker: Unknown options '--workr' \(did you mean --worker\?\), '--wroker' \(did you mean --worker\?\)\. See `maker run --help`\.$/m,
    ],
    [['estimate', '--p', '0.9', '--bogus=3', '-q'], /Unknown options '--bogus', '-q'\./],
    [['run'], /^maker run needs an idea/],
    [['run'], /maker run needs an idea/],
    [['run', 'a', 'todo'], /quote it as one argument/],
    [['answer', 'q-root-veto'], /needs a question id and an answer/],
    [['demo', '--worker', 'gemini'], /--worker must be jules-fake or sim \(got "gemini"\)/],
    [['bench', 'chess'], /unknown command "chess"/],
    [['frobnicate'], /unknown command "frobnicate"\. Run `maker --help`/],
    [['help', 'frobnicate'], /unknown command "frobnicate"/],
  ])('%j exits 2 with a message and no stack trace', async (args, message) => {
    const { code, stdout, stderr } = await maker(args);
    expect(code).toBe(2);
    expect(stderr).toMatch(message);
    expect(stderr).not.toMatch(/\n\s+at |unexpected error|ambiguous/);
    expect(stdout).toBe('');
  });

  it('with no command, shows the commands and exits 2', async () => {
    const { code, stderr } = await maker([]);
    expect(code).toBe(2);
    expect(stderr).toMatch(/^Usage: maker <command>/);
  });
});
