import { describe, expect, it } from 'vitest';
import { mermaidMarkdown, mermaidText, mermaidTree } from '../../src/core/view/mermaid.js';
import { bigRun, flagged, node, record, runOf, valid } from '../helpers/runs.js';

/** Every line a diagram may have: a header, a box, an edge, a class definition or assignment. */
const LINE =
  /^(flowchart (TD|LR)| {2}[nm]\d+\["[^"\n]*"\]| {2}[nm]\d+ --> [nm]\d+| {2}classDef [a-z]+ fill:#[0-9a-f]{6},stroke:#[0-9a-f]{6},color:#111| {2}class [nm]\d+(,[nm]\d+)* [a-z]+)$/;

const boxes = (diagram: string) => diagram.split('\n').filter((l) => /^ {2}[nm]\d+\[/.test(l));

describe('the run as a Mermaid diagram', () => {
  it('draws each node with its status, tally and red flags, coloured by status', () => {
    const run = runOf([
      node('root', { status: 'composing', kind: 'branch' }),
      node('0', {
        status: 'done',
        kind: 'leaf',
        title: 'Write the parser',
        leaf: record([valid(0, 'a'), valid(1, 'a'), flagged(2, 'parse'), valid(3, 'a')], {
          outcome: {
            status: 'decided',
            key: 'a',
            votes: 3,
            runnerUpVotes: 0,
            draws: 4,
            flagged: 1,
          },
        }),
      }),
      node('1', { status: 'sampling', kind: 'leaf', title: 'Write the CLI' }),
    ]);
    const diagram = mermaidTree(run);
    expect(diagram).toBe(mermaidTree(run));
    for (const line of diagram.split('\n')) expect(line).toMatch(LINE);
    expect(diagram).toContain('n1["Write the parser<br/>done #183; 3 : 0 #183; 1 red-flagged"]');
    expect(diagram).toContain('n0 --> n1');
    expect(diagram).toMatch(/class n1 done/);
    expect(diagram).toMatch(/class n2 sampling/);
    expect(mermaidMarkdown(run)).toBe(`\`\`\`mermaid\n${diagram}\n\`\`\``);
  });

  it.each([
    ['quotes and brackets', 'say "hi"] --> evil["x'],
    ['a directive', '%%{init: {"theme":"dark"}}%%'],
    ['a click handler', 'a"]\n  click n0 "https://example.com"'],
    ['html', '<img src=x onerror=alert(1)>'],
    ['entities', '#quot; #35; &amp;'],
    ['bidi and control characters', 'abc\u202Edef\u0000\u0007 ghi'],
    ['backticks and markdown', '`**bold**` _x_'],
  ])('escapes a title with %s so it cannot change the diagram', (_name, title) => {
    const run = runOf([node('root', { title })]);
    const diagram = mermaidTree(run);
    for (const line of diagram.split('\n')) expect(line).toMatch(LINE);
    expect(diagram.split('\n')).toHaveLength(4);
  });

  it('keeps titles readable: safe characters stay, the rest become entity codes', () => {
    expect(mermaidText('Parse CSV (fast): v2.0 - ok?', 60)).toBe('Parse CSV (fast): v2.0 - ok?');
    expect(mermaidText('a"b#c', 60)).toBe('a#34;b#35;c');
    expect(mermaidText('é', 60)).toBe('#233;');
    expect(mermaidText('x'.repeat(100), 10)).toBe(`${'x'.repeat(9)}#8230;`);
  });

  it('bounds a 1,000-node tree, folding the deepest subtrees into counted boxes', () => {
    const run = bigRun(1000);
    const diagram = mermaidTree(run);
    expect(boxes(diagram).length).toBeLessThanOrEqual(100);
    expect(diagram.length).toBeLessThanOrEqual(30_000);
    for (const line of diagram.split('\n')) expect(line).toMatch(LINE);
    // Every node is drawn or counted in a "… N more nodes" box.
    const drawn = boxes(diagram).filter((l) => l.startsWith('  n')).length;
    const folded = [...diagram.matchAll(/#8230; (\d+) more node/g)].reduce(
      (a, m) => a + Number(m[1]),
      0,
    );
    expect(drawn + folded).toBe(1000);
    expect(boxes(mermaidTree(run, { maxNodes: 20 })).length).toBeLessThanOrEqual(20);
    expect(mermaidTree(run, { maxChars: 3000 }).length).toBeLessThanOrEqual(3000);
  });
});

describe('what the diagram says about the run as a whole', () => {
  it('a simulated run says SIMULATED on its root', () => {
    const simulated = runOf([node('root', { title: 'a csv tool' })], {
      config: { ...runOf([]).config, worker: 'sim', simulated: true },
    });
    expect(boxes(mermaidTree(simulated))[0]).toMatch(/^ {2}n0\["SIMULATED #183; a csv tool<br\/>/);
    const real = runOf([node('root', { title: 'a csv tool' })], {
      config: { ...runOf([]).config, worker: 'gemini', planner: 'gemini', simulated: false },
    });
    expect(mermaidTree(real)).not.toContain('SIMULATED');
  });

  it('the root of a vetoed run is drawn vetoed, not a green done', () => {
    const run = runOf([node('root', { status: 'done', kind: 'branch', title: 'the app' })], {
      status: 'vetoed',
    });
    const diagram = mermaidTree(run);
    for (const line of diagram.split('\n')) expect(line).toMatch(LINE);
    expect(diagram).toMatch(/class n0 vetoed/);
    expect(diagram).not.toMatch(/class n0 done/);
  });
});
