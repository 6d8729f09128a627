import { execFileSync } from 'node:child_process';
import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { EngineEvent } from '../../src/engine/events.js';
import { openWorkspace } from '../../src/app/wiring/wiring.js';
import type { FakeGeminiReply, FakeGeminiRequest } from '../../src/offline/fake-gemini.js';
import { geminiConfig, geminiEngine, useFakeGemini } from '../helpers/gemini-engine.js';
import { useTempDirs } from '../helpers/tmp.js';
import { atRoot, isTask, promptRole } from '../helpers/prompts.js';
import { workspaceSettings } from '../helpers/settings.js';

const tempDir = useTempDirs();
const startFake = useFakeGemini();

/** What the first subtask writes: the second must see it whole to call it. */
const LIB =
  'export function slugify(text: string, sep = "-"): string {\n  return text.toLowerCase().split(" ").join(sep);\n}\n';
/** Too big for the worker's budget: it must be named, not silently dropped. */
const FIXTURES = `export const FIXTURES = [\n${'  "a fixture line that takes room",\n'.repeat(400)}];\n`;

/** A model that splits the idea in two (the second subtask depends on the first) and writes both. */
function scripted(request: FakeGeminiRequest): FakeGeminiReply {
  const p = request.prompt;
  const role = promptRole(request);
  if (role === 'minimal')
    return {
      text: JSON.stringify({ minimal: !atRoot(p), reason: 'x' }),
    };
  if (role === 'split')
    return {
      text: JSON.stringify({
        subtasks: [
          {
            title: 'Write the slug library',
            description: 'A slugify function.',
            acceptance: ['slugify lowercases and joins words'],
            files: ['src/slug.ts'],
            dependsOn: [],
          },
          {
            title: 'Write the CLI',
            description: 'A CLI that prints the slug of its arguments.',
            acceptance: ['prints the slug'],
            files: ['src/cli.ts', 'test/fixtures.ts'],
            dependsOn: [0],
            check: 'node src/cli.ts a b',
          },
        ],
        ambiguity: null,
      }),
    };
  if (role === 'ballot' || role === 'blame')
    return { text: JSON.stringify({ choice: 'A', reason: 'x' }) };
  if (role === 'review')
    return { text: JSON.stringify({ verdict: 'ok', confidence: 0.9, reason: 'fine' }) };
  if (role === 'worker') {
    const lib = isTask(p, 'Write the slug library');
    return {
      text: JSON.stringify({
        files: [
          lib
            ? { path: 'src/slug.ts', content: LIB }
            : {
                path: 'src/cli.ts',
                content:
                  "import { slugify } from './slug.js';\nconsole.log(slugify(process.argv.slice(2).join(' ')));\n",
              },
        ],
        summary: lib ? 'Add slugify' : 'Add the CLI',
      }),
    };
  }
  return { status: 400, message: `unexpected prompt: ${p.slice(0, 80)}` };
}

describe('the worker sees what a careful engineer would (a scripted Gemini checks its prompts)', () => {
  it("shows the dependency's files whole, the repository map, the check, and names what the budget left out", async () => {
    const fake = await startFake(scripted);
    const dir = await tempDir();
    await mkdir(join(dir, 'test'), { recursive: true });
    await mkdir(join(dir, 'docs'), { recursive: true });
    await writeFile(join(dir, 'test', 'fixtures.ts'), FIXTURES);
    await writeFile(join(dir, 'docs', 'notes.py'), 'def helper(x: int) -> int:\n    return x\n');
    execFileSync('git', ['init', '-q', '-b', 'main', dir]);
    execFileSync('git', ['-C', dir, 'add', '.']);
    execFileSync('git', [
      '-C',
      dir,
      '-c',
      'user.name=t',
      '-c',
      'user.email=t@t',
      'commit',
      '-qm',
      'start',
    ]);
    const workspace = await openWorkspace(dir, false, workspaceSettings());
    const engine = geminiEngine(dir, workspace, fake, { contextChars: 6_000 });
    const events: EngineEvent[] = [];
    const collecting = (async () => {
      for await (const e of engine.events()) events.push(e);
    })();
    const runId = await engine.create('a slug CLI', { ...geminiConfig, maxDepth: 3 });
    const outcome = await engine.run(runId);
    engine.close();
    await collecting;
    expect(outcome.status).toBe('done');

    const split = fake.requests.find((r) => promptRole(r) === 'split');
    expect(split?.prompt).toContain('The repository as it is now:');
    // The root's scope is the whole repository: its files whole, and the map.
    expect(split?.prompt).toContain('=== docs/notes.py ===\ndef helper(x: int) -> int:\n');
    expect(split?.prompt).toContain(
      'Repository map (every path; top-level definitions of source files):\ndocs/notes.py\ntest/fixtures.ts\n',
    );

    const cli = fake.requests.filter(
      (r) => isTask(r.prompt, 'Write the CLI') && promptRole(r) === 'worker',
    );
    expect(cli.length).toBeGreaterThan(0);
    for (const r of cli) {
      expect(r.prompt).toContain(
        `Files changed by the subtasks this one builds on (complete contents, as they are now):\n=== src/slug.ts (changed by "Write the slug library") ===\n${LIB}`,
      );
      expect(r.prompt).toContain(
        'Repository map (every path; top-level definitions of source files):\n',
      );
      expect(r.prompt).toContain('src/slug.ts\n');
      expect(r.prompt).toContain('docs/notes.py\n  def helper(x: int) -> int\n');
      expect(r.prompt).toMatch(
        /Also exists \(left out for the context budget\): test\/fixtures\.ts \(\d+ bytes\)/,
      );
      expect(r.prompt).not.toContain('a fixture line that takes room');
      expect(r.prompt).toContain('Not in the repository yet (to be created): src/cli.ts');
      expect(r.prompt).toContain('Its check (a command that must pass): node src/cli.ts a b');
      expect(r.prompt).toContain('Done when:\n- prints the slug');
    }
    // The library's own prompt cannot see the CLI's files, which do not exist yet.
    const lib = fake.requests.find(
      (r) => isTask(r.prompt, 'Write the slug library') && promptRole(r) === 'worker',
    );
    expect(lib?.prompt).not.toContain('Files changed by the subtasks this one builds on');

    // Each built view is reported once, with its size, within the budget.
    const built = events.filter((e) => e.type === 'context-built');
    const cliNode = Object.values((await engine.getRun(runId)).nodes).find(
      (n) => n.title === 'Write the CLI',
    );
    const forCli = built.filter((e) => e.nodeId === cliNode?.id);
    // The worker's view (the judges and the minimality vote see the map alone, in views of their own).
    const workerViews = forCli.filter((e) => e.type === 'context-built' && e.budget < 6_000);
    expect(workerViews).toHaveLength(1);
    expect(workerViews[0]).toMatchObject({ omitted: 1 });
    expect(
      forCli.every((e) => e.type === 'context-built' && (e.budget < 6_000 || e.omitted === 0)),
    ).toBe(true);
    for (const e of built) expect(e.type === 'context-built' && e.chars <= e.budget).toBe(true);
  });
});
