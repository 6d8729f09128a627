import { describe, expect, it } from 'vitest';
import { parseFencedEdits, renderFencedEdits } from '../../src/core/fenced-edits.js';

const F = '```';

const reason = (text: string) => {
  const parsed = parseFencedEdits(text);
  if (parsed.ok) throw new Error(`parsed: ${JSON.stringify(parsed.value)}`);
  return parsed.reason;
};

describe('the fenced edit format, read strictly', () => {
  it('reads files, the summary, deletions and needed files', () => {
    const text = [
      'Here are the files:',
      '',
      'File: src/a.mjs',
      `${F}js`,
      "export const a = 'x\\n';",
      F,
      '',
      'File: `test/a.test.mjs`',
      F,
      "import { a } from '../src/a.mjs';",
      F,
      `${F}json`,
      '{"summary": "Add a", "delete": ["old.txt"]}',
      F,
    ].join('\n');
    const parsed = parseFencedEdits(text);
    expect(parsed).toEqual({
      ok: true,
      value: {
        files: [
          // Content is plain text: the backslash stays one backslash.
          { path: 'src/a.mjs', content: "export const a = 'x\\n';\n" },
          { path: 'test/a.test.mjs', content: "import { a } from '../src/a.mjs';\n" },
          { path: 'old.txt', content: null },
        ],
        summary: 'Add a',
        needsFiles: [],
      },
    });
  });

  it('round-trips what it renders, a file holding ``` lines in a longer fence', () => {
    const files = [
      { path: 'README.md', content: `# Tool\n\n${F}sh\nnpm test\n${F}\n` },
      { path: 'src/x.mjs', content: 'export const x = 1;\n' },
      { path: 'gone.txt', content: null },
    ];
    const text = renderFencedEdits({ files, summary: 'Docs' });
    expect(text).toContain('````md\n');
    expect(parseFencedEdits(text)).toEqual({
      ok: true,
      value: { files, summary: 'Docs', needsFiles: [] },
    });
  });

  it('reads an answer that only asks for files', () => {
    const parsed = parseFencedEdits(
      `${F}json\n{"needsFiles": ["package.json"], "summary": "needs the bin"}\n${F}\n`,
    );
    expect(parsed.ok && parsed.value.needsFiles).toEqual(['package.json']);
  });

  it('rejects a block without its File: line', () => {
    expect(reason(`File: a.mjs\n${F}js\n1\n${F}\n\n${F}js\n2\n${F}\n`)).toMatch(
      /no "File: <path>" line before it \(after a\.mjs\)/,
    );
    // A file's ```json block without its path is not taken for the summary.
    expect(reason(`${F}json\n{"name": "x"}\n${F}\n`)).toMatch(/path line may be missing/);
  });

  it('rejects a block never closed, last or followed by another file', () => {
    expect(reason(`File: a.mjs\n${F}js\nexport const a = 1;\n`)).toMatch(
      /block for a\.mjs is never closed/,
    );
    expect(reason(`File: a.mjs\n${F}js\n1\n\nFile: b.mjs\n${F}js\n2\n${F}\n`)).toMatch(
      /block for a\.mjs holds "File: b\.mjs" and an opening fence .*closing fence is missing/,
    );
    // Its closing fence missing, a lone file would swallow the summary block: it is seen.
    expect(reason(`File: a.mjs\n${F}js\n1\n${F}json\n{"summary": "s"}\n${F}\n`)).toMatch(
      /holds a line opening another fenced block/,
    );
  });

  it('rejects a file holding ``` lines fenced with three backticks', () => {
    const md = `File: README.md\n${F}md\n# Tool\n\n${F}sh\nnpm test\n${F}\n\nMore.\n${F}\n`;
    expect(reason(md)).toMatch(/holds a line opening another fenced block.*needed a longer fence/);
    // Its example without an info string: the block closes early and the rest is left outside.
    const bare = `File: README.md\n${F}md\n# Tool\n\n${F}\nnpm test\n${F}\n\nMore.\n${F}\n`;
    expect(reason(bare)).toMatch(/text outside a fenced block after README\.md/);
  });

  it('rejects a path written twice, a block after the summary, a File: line with no block, nothing', () => {
    expect(reason(`File: a\n${F}\n1\n${F}\nFile: a\n${F}\n2\n${F}\n`)).toMatch(
      /a is written twice/,
    );
    expect(reason(`${F}json\n{"summary": ""}\n${F}\nFile: a\n${F}\n1\n${F}\n`)).toMatch(
      /the summary comes last/,
    );
    expect(reason('File: a.mjs\nexport const a = 1;\n')).toMatch(/is not an opening fence/);
    expect(reason('I could not do it.')).toMatch(/no "File: <path>" blocks/);
  });
});
