import { describe, expect, it } from 'vitest';
import {
  editFormatRedFlags,
  isOmissionLine,
  overEscaped,
  structureProblem,
  withoutComments,
} from '../../src/core/edit-format.js';

const bytes = (text: string) => new Uint8Array(Buffer.from(text));
const written = (path: string, after: string, before?: string) => ({
  path,
  after: bytes(after),
  ...(before === undefined ? {} : { before: bytes(before) }),
});
const rules = (files: ReturnType<typeof written>[], wholeFiles = true) =>
  editFormatRedFlags(files, { wholeFiles }).map((f) => f.rule);

describe('edit-format red flags', () => {
  it('flags a package.json that does not parse (a whole-file rewrite with "# ... rest unchanged")', () => {
    const before =
      '{\n  "name": "x",\n  "scripts": { "test": "vitest" },\n  "dependencies": {}\n}\n';
    const after = '{\n  "name": "x",\n  # ... rest unchanged\n  "bin": { "x": "dist/x.js" }\n}\n';
    const flags = editFormatRedFlags([written('package.json', after, before)], {
      wholeFiles: true,
    });
    expect(flags.map((f) => f.rule).sort()).toEqual(['does-not-parse', 'omission-marker']);
    expect(flags.find((f) => f.rule === 'does-not-parse')?.message).toContain('"package.json"');
    expect(rules([written('package.json', '{"name": "x", "version": "1.0.0"}\n', before)])).toEqual(
      [],
    );
  });

  it('reads TOML and YAML with their parsers, and tsconfig.json as JSON with comments', () => {
    expect(
      structureProblem('pyproject.toml', '[project]\nname = "x"\ndependencies = ["a"]\n'),
    ).toBeUndefined();
    expect(structureProblem('pyproject.toml', '[project]\nname = "x\n')).toMatch(/^TOML: /);
    expect(
      structureProblem('.github/ci.yml', 'on: push\njobs:\n  a:\n    runs-on: x\n'),
    ).toBeUndefined();
    expect(structureProblem('config.yaml', 'a: [1, 2\nb: c\n')).toMatch(/^YAML: /);
    const tsconfig = '{\n  // strict\n  "compilerOptions": { "strict": true, },\n}\n';
    expect(structureProblem('tsconfig.json', tsconfig)).toBeUndefined();
    expect(structureProblem('data.json', tsconfig)).toMatch(/^JSON: /);
    expect(structureProblem('src/a.ts', 'not { json')).toBeUndefined();
    // Comment and comma characters inside strings are content.
    const urls =
      '{\n  "paths": { "a": ["http://x/*,]"] }, /* c */\n  "b": [1, 2, // two\n  ],\n}\n';
    expect(structureProblem('tsconfig.base.json', urls)).toBeUndefined();
    expect(JSON.parse(withoutComments(urls))).toEqual({
      paths: { a: ['http://x/*,]'] },
      b: [1, 2],
    });
  });

  it('does not blame a candidate for a file that did not parse before it', () => {
    expect(rules([written('broken.json', '{ still broken', '{ broken')])).toEqual([]);
  });

  it('flags over-escaped source: one line of literal \\n sequences', () => {
    const escaped = 'import sys\\n\\ndef main():\\n    print(sys.argv)\\n';
    expect(overEscaped('src/main.py', escaped)).toBe(true);
    expect(rules([written('src/main.py', escaped)])).toEqual(['over-escaped']);
    // Real newlines, a one-line file, minified code and data are left alone.
    expect(overEscaped('src/main.py', 'print("a\\nb\\nc\\nd")\nprint(1)\n')).toBe(false);
    expect(overEscaped('src/one.ts', 'export const x = 1;\n')).toBe(false);
    expect(overEscaped('dist/app.min.js', 'a("\\n\\n\\n")')).toBe(false);
    expect(overEscaped('data.json', '{"a": "x\\ny\\nz\\nw"}')).toBe(false);
  });

  it('flags omission markers a whole-file rewrite adds, not ones it kept, not in patches', () => {
    for (const line of [
      '// ... rest unchanged',
      '  // ...',
      '# ...existing code...',
      '/* ... */',
      '<!-- ... -->',
      '// rest of the file unchanged',
      '# Rest of the code remains the same',
      '// ... existing code ...',
      '// existing imports',
      '...existing code...',
      '// (unchanged)',
      '    # other methods omitted for brevity',
    ])
      expect(isOmissionLine(line), line).toBe(true);
    for (const line of [
      '// leave the rest unchanged when the flag is off',
      'const { a, ...rest } = options;',
      'function f(...args) { return args; }',
      '    ...',
      '# more tests below',
      '// other imports',
      'The rest of the API remains unchanged.',
      '// the rest of the arguments are passed through',
    ])
      expect(isOmissionLine(line), line).toBe(false);
    const before = 'def a():\n    return 1\n\n\ndef b():\n    return 2\n';
    const after = 'def a():\n    return 10\n\n\n# ... rest unchanged\n';
    expect(rules([written('src/m.py', after, before)])).toEqual(['omission-marker']);
    expect(rules([written('src/m.py', after, before)], false)).toEqual([]);
    expect(rules([written('src/m.py', `${after}x = 1\n`, after)])).toEqual([]);
  });
});
