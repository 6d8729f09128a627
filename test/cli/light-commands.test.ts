import { execFile } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';
import { CLI } from '../helpers/cli.js';
import { useTempDirs } from '../helpers/tmp.js';

/**
 * Commands load what they use: `maker --help`, `maker estimate` and `maker bench hanoi` never load
 * the MCP SDK or GitHub's client (Octokit), which only runs, resumes, the MCP server and the GitHub
 * benchmark need. Found by a module loader hook that logs every file the process loads, and the
 * module comments esbuild writes before each bundled module.
 */
const exec = promisify(execFile);
const tempDir = useTempDirs();

/** `node --import` of this: every `file:` module the process loads is appended to `log`. */
function moduleLog(log: string): string {
  const hooks = `import { appendFileSync } from 'node:fs';
export async function load(url, context, next) {
  if (url.startsWith('file:')) appendFileSync(${JSON.stringify(log)}, url + '\\n');
  return next(url, context);
}`;
  const register = `import { register } from 'node:module';
register(${JSON.stringify(`data:text/javascript,${encodeURIComponent(hooks)}`)});`;
  return `data:text/javascript,${encodeURIComponent(register)}`;
}

/** Heavy libraries, by the path esbuild names them with (node_modules may be a link elsewhere). */
const HEAVY: Record<string, RegExp> = {
  'MCP SDK': /^\/\/ (?:\S*\/)?node_modules\/@modelcontextprotocol\//m,
  Octokit: /^\/\/ (?:\S*\/)?node_modules\/(?:@octokit|octokit)\//m,
};

/**
 * What a help page or the version never needs: zod (options are validated only when a command
 * runs), the engine, and the state and git adapters (each command's run is a module of its own).
 */
const NOT_FOR_HELP: Record<string, RegExp> = {
  ...HEAVY,
  zod: /^\/\/ (?:\S*\/)?node_modules\/zod\//m,
  engine: /^\/\/ src\/engine\/maker-engine\.ts$/m,
  'state adapter': /^\/\/ src\/adapters\/state\//m,
  'git adapter': /^\/\/ src\/adapters\/git\/git-workspace\.ts$/m,
};

async function heavyLoadedBy(
  args: readonly string[],
  markers: Record<string, RegExp> = HEAVY,
): Promise<string[]> {
  const log = join(await tempDir(), 'modules.log');
  await exec(process.execPath, ['--import', moduleLog(log), CLI, ...args], {
    env: { PATH: process.env['PATH'] ?? '', HOME: await tempDir() },
  });
  const files = [
    ...new Set((await readFile(log, 'utf8')).split('\n').filter((url) => url !== '')),
  ].map((url) => fileURLToPath(url));
  expect(files.length).toBeGreaterThan(0);
  const found = new Set<string>();
  for (const file of files) {
    const source = readFileSync(file, 'utf8');
    for (const [name, marker] of Object.entries(markers)) if (marker.test(source)) found.add(name);
  }
  return [...found].sort();
}

/**
 * What `maker --help`, `--version` and `<command> --help` do not load either: commander, or the
 * command definitions (their pages were rendered at build time, see help-pages.ts).
 */
const NOT_FOR_PAGES: Record<string, RegExp> = {
  ...NOT_FOR_HELP,
  commander: /^\/\/ (?:\S*\/)?node_modules\/commander\//m,
  'command definitions': /^\/\/ src\/surfaces\/cli\/commands\/run\.ts$/m,
};

describe('light commands load no heavy library', () => {
  it.each([
    [['--help']],
    [['estimate', '--p', '0.99', '--steps', '100', '--target', '0.9']],
    [['bench', 'hanoi', '--disks', '10', '--json']],
  ])('maker %j loads neither the MCP SDK nor Octokit', async (args) => {
    expect(await heavyLoadedBy(args)).toEqual([]);
  });

  it.each([[['--help']], [['--version']], [['run', '--help']], [['bench', 'hanoi', '--help']]])(
    'maker %j loads no command implementation: neither zod, nor the engine, nor the adapters',
    async (args) => {
      expect(await heavyLoadedBy(args, NOT_FOR_HELP)).toEqual([]);
    },
  );

  it.each([
    [['--help']],
    [['--version']],
    [['run', '--help']],
    [['bench', 'hanoi', '-h']],
    [['help', 'estimate']],
  ])('maker %j loads neither commander nor the command definitions', async (args) => {
    expect(await heavyLoadedBy(args, NOT_FOR_PAGES)).toEqual([]);
  });

  it('maker --version does not load the help pages either', async () => {
    const pages = { 'help pages': /^\/\/ src\/surfaces\/cli\/help-data\.ts$/m };
    expect(await heavyLoadedBy(['--version'], { ...NOT_FOR_PAGES, ...pages })).toEqual([]);
    expect(await heavyLoadedBy(['--help'], pages)).toEqual(['help pages']);
  });

  it('the built chunks hold both libraries, so the markers above can find them', async () => {
    const all = await exec('ls', [join(process.cwd(), 'dist')]);
    const chunks = all.stdout
      .split('\n')
      .filter((f) => /^chunk-.*\.js$/.test(f))
      .map((f) => readFileSync(join(process.cwd(), 'dist', f), 'utf8'));
    for (const marker of Object.values(NOT_FOR_PAGES))
      expect(chunks.some((source) => marker.test(source))).toBe(true);
  });
});
