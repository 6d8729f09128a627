import { mkdir, writeFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { openWorkspace } from '../../src/app/wiring/wiring.js';
import type { FakeGeminiRequest } from '../../src/offline/fake-gemini.js';
import { geminiConfig, geminiEngine, git, useFakeGemini } from '../helpers/gemini-engine.js';
import { useTempDirs } from '../helpers/tmp.js';
import { atRoot, isTask, promptRole } from '../helpers/prompts.js';
import { workspaceSettings } from '../helpers/settings.js';

const tempDir = useTempDirs();
const startFake = useFakeGemini();

/** A 20-file TypeScript project. */
const FILES: Record<string, string> = {
  'package.json':
    '{\n  "name": "calc",\n  "type": "module",\n  "scripts": { "test": "vitest run" }\n}\n',
  'tsconfig.json':
    '{\n  // strict\n  "compilerOptions": { "strict": true, "module": "NodeNext" }\n}\n',
  'README.md': '# calc\n',
  'src/core/math.ts': 'export function add(a: number, b: number): number {\n  return a + b;\n}\n',
  ...Object.fromEntries(
    Array.from({ length: 16 }, (_, i) => [
      `src/feature${i}/index.ts`,
      `export function feature${i}(): number {\n  return ${i};\n}\n`,
    ]),
  ),
};

function model(request: FakeGeminiRequest) {
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
            title: 'Add subtraction',
            description: 'A sub(a, b) function in src/core/math.ts.',
            acceptance: ['sub(3, 1) is 2'],
            files: ['src/core/math.ts'],
            dependsOn: [],
          },
          {
            title: 'Test the math module',
            description: 'Tests for add and sub.',
            acceptance: ['the tests pass'],
            files: ['test/math.test.ts'],
            dependsOn: [0],
          },
        ],
        ambiguity: null,
      }),
    };
  if (role === 'ballot' || role === 'blame')
    return { text: JSON.stringify({ choice: 'A', reason: 'x' }) };
  if (role === 'review')
    return { text: JSON.stringify({ verdict: 'ok', confidence: 0.9, reason: 'fine' }) };
  const tests = isTask(p, 'Test the math module');
  return {
    text: JSON.stringify({
      files: [
        tests
          ? { path: 'test/math.test.ts', content: "import { add } from '../src/core/math.js';\n" }
          : {
              path: 'src/core/math.ts',
              content: `${FILES['src/core/math.ts'] ?? ''}export function sub(a: number, b: number): number {\n  return a - b;\n}\n`,
            },
      ],
      summary: 'x',
    }),
  };
}

describe('what prompts that reason about code are shown of a 20-file repository', () => {
  it('every one holds the map with every path; the test-writer sees package.json and tsconfig.json', async () => {
    const fake = await startFake(model);
    const dir = await tempDir();
    for (const [path, content] of Object.entries(FILES)) {
      await mkdir(dirname(join(dir, path)), { recursive: true });
      await writeFile(join(dir, path), content);
    }
    git(dir, 'init', '-q', '-b', 'main');
    git(dir, 'add', '.');
    git(dir, '-c', 'user.name=p', '-c', 'user.email=p@x', 'commit', '-q', '-m', 'base');
    const workspace = await openWorkspace(dir, false, workspaceSettings({}));
    const engine = geminiEngine(dir, workspace, fake);
    const runId = await engine.create('a calculator library', geminiConfig);
    const outcome = await engine.run(runId);
    expect(outcome.error).toBeUndefined();
    for (const role of ['minimal', 'split', 'worker', 'review'] as const) {
      const prompts = fake.requests.filter((r) => promptRole(r) === role);
      expect(prompts.length, role).toBeGreaterThan(0);
      for (const r of prompts) {
        expect(r.prompt, role).toContain('Repository map (every path');
        for (const path of Object.keys(FILES)) expect(r.prompt, `${role}: ${path}`).toContain(path);
        // Outlines of source files, not only paths.
        expect(r.prompt, role).toContain('export function feature15(): number');
      }
    }
    const testWriter = fake.requests.filter(
      (r) => promptRole(r) === 'worker' && isTask(r.prompt, 'Test the math module'),
    );
    expect(testWriter.length).toBeGreaterThan(0);
    for (const r of testWriter) {
      expect(r.prompt).toContain(`=== package.json ===\n${FILES['package.json']}`);
      expect(r.prompt).toContain(`=== tsconfig.json ===\n${FILES['tsconfig.json']}`);
      expect(r.prompt).toContain('=== src/core/math.ts (changed by "Add subtraction") ===');
      // Its sibling's promise, without the idea repeated as a parent.
      expect(r.prompt).toContain('- Add subtraction: sub(3, 1) is 2');
      expect(r.prompt).not.toContain('Part of:');
      expect(r.prompt).not.toContain('Decomposition depth');
    }
  });
});
