import { describe, expect, it } from 'vitest';
import { MemoryWorkspace } from '../../src/adapters/memory/memory-workspace.js';
import { RepoContextBuilder } from '../../src/engine/context/repo-context.js';
import type { Workspace } from '../../src/ports/workspace.js';
import { openWorkspace } from '../../src/app/wiring/wiring.js';
import { useTempDirs } from '../helpers/tmp.js';
import { workspaceSettings } from '../helpers/settings.js';

const tempDir = useTempDirs();
const DATE = new Date('2025-01-01T00:00:00Z');

const FILES: Record<string, string> = {
  'README.md': '# tool\n',
  'src/cli.ts':
    "import { parse } from './parse.js';\nexport function main(argv: string[]): number {\n  return 0;\n}\n",
  'src/util/strings.py': 'def slug(text: str) -> str:\n    return text\n',
  'docs/guide.md': 'How to use it.\n',
  'assets/logo.bin': 'PNG\0\0\0binary',
};

/** The base, and a dependency's commit on top of it that adds `src/parse.ts`. */
async function repository(ws: Workspace, base: string) {
  const tree = await ws.treeWithEdits(base, [
    {
      path: 'src/parse.ts',
      content:
        'export interface Row {\n  id: number;\n}\nexport function parse(text: string): Row[] {\n  return [];\n}\n',
    },
  ]);
  const dependency = await ws.commit({ tree, parents: [base], message: 'parse', date: DATE });
  return { dependency };
}

describe('RepoContextBuilder: what a node sees of the repository, within a budget', () => {
  it('shows the scope and the dependencies whole, and maps every path with its definitions', async () => {
    const ws = new MemoryWorkspace(FILES);
    const base = (await ws.resolve('main')) as string;
    const { dependency } = await repository(ws, base);
    const built = await new RepoContextBuilder(ws).build(
      {
        base: dependency,
        scope: ['src/cli.ts', 'src/new.ts'],
        dependencies: [{ title: 'Write the parser', from: base, to: dependency }],
      },
      20_000,
    );
    expect(built.text).toContain(
      `Files in scope (complete contents):\n=== src/cli.ts ===\n${FILES['src/cli.ts']}`,
    );
    expect(built.text).toContain('Not in the repository yet (to be created): src/new.ts');
    expect(built.text).toContain(
      '=== src/parse.ts (changed by "Write the parser") ===\nexport interface Row {\n  id: number;\n}',
    );
    expect(built.text).toContain(
      'Repository map (every path; top-level definitions of source files):\nREADME.md\nassets/logo.bin\ndocs/guide.md\nsrc/cli.ts\nsrc/parse.ts\nsrc/util/strings.py\n  def slug(text: str) -> str\n',
    );
    expect(built.text).not.toContain('Also exists');
    expect(built).toMatchObject({ chars: built.text.length, budget: 20_000, omitted: [] });
  });

  it('names what the budget leaves out, and never goes over it', async () => {
    const big = `export const DATA = [\n${'  1,\n'.repeat(4000)}];\n`;
    const ws = new MemoryWorkspace({ ...FILES, 'src/data.ts': big });
    const base = (await ws.resolve('main')) as string;
    const builder = new RepoContextBuilder(ws);
    const built = await builder.build({ base, scope: ['src/'], dependencies: [] }, 4_000);
    expect(built.text).toContain('=== src/cli.ts ===');
    expect(built.text).not.toContain('=== src/data.ts ===');
    expect(built.text).toMatch(
      /Also exists \(left out for the context budget\): src\/data\.ts \(\d+ bytes\)/,
    );
    expect(built.omitted).toEqual(['src/data.ts']);
    expect(built.text).toContain('\nsrc/data.ts\n'); // still in the map
    for (const budget of [0, 50, 200, 400, 1000, 3000, 20_000, 100_000]) {
      const b = await builder.build({ base, scope: ['src/'], dependencies: [] }, budget);
      expect(b.chars, `budget ${budget}`).toBeLessThanOrEqual(budget);
      expect(b.chars).toBe(b.text.length);
    }
  });

  it('lists as many paths as fit, then counts the rest', async () => {
    const files = Object.fromEntries(
      Array.from({ length: 300 }, (_, i) => [
        `pkg/module-${String(i).padStart(3, '0')}.py`,
        `def f${i}(x):\n    return x\n`,
      ]),
    );
    const ws = new MemoryWorkspace(files);
    const base = (await ws.resolve('main')) as string;
    const built = await new RepoContextBuilder(ws).build(
      { base, scope: ['nothing/'], dependencies: [] },
      3_000,
    );
    const listed = built.text.split('\n').filter((l) => l.startsWith('pkg/')).length;
    expect(listed).toBeGreaterThan(50);
    expect(listed).toBeLessThan(300);
    expect(built.text).toContain(
      `… and ${300 - listed} more paths, not listed for the context budget.`,
    );
    expect(built.omitted).toHaveLength(300 - listed);
    expect(built.chars).toBeLessThanOrEqual(3_000);
  });

  it('works on a real git repository (the empty tree lists every entry)', async () => {
    const dir = await tempDir();
    const ws = await openWorkspace(dir, true, workspaceSettings());
    const head = (await ws.resolve('HEAD')) as string;
    const tree = await ws.treeWithEdits(
      head,
      Object.entries(FILES).map(([path, content]) => ({ path, content })),
    );
    const base = await ws.commit({ tree, parents: [head], message: 'files', date: DATE });
    const { dependency } = await repository(ws, base);
    const built = await new RepoContextBuilder(ws).build(
      {
        base: dependency,
        scope: ['assets/'],
        dependencies: [{ title: 'parser', from: base, to: dependency }],
      },
      10_000,
    );
    expect(built.text).toContain('=== assets/logo.bin === (binary, 12 bytes)');
    expect(built.text).toContain('=== src/parse.ts (changed by "parser") ===');
    expect(built.text).toContain('src/cli.ts\n  export function main(argv: string[]): number\n');
  });
});
