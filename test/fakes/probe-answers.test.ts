import { execFile } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { uniform } from '../../src/core/random.js';
import { writeTree } from '../../src/surfaces/bench/hidden-tests.js';
import { PRODUCT_IDEAS } from '../../src/offline/product/ideas/index.js';
import { csvToJson } from '../../src/offline/product/ideas/csv-to-json.js';
import { rightTest } from '../../src/offline/product/acceptance-answers.js';
import { probeAnswer } from '../../src/offline/product/probe-answers.js';
import { writeLeaf, type Flaw } from '../../src/offline/product/render.js';
import { useTempDirs } from '../helpers/tmp.js';

const tempDir = useTempDirs();

/** The fake's right probe for leaf `leaf` of `idea` (p = 1), or undefined when it has none. */
function rightProbe(idea: (typeof PRODUCT_IDEAS)[number], leaf: number) {
  const answer = probeAnswer(idea, { kind: 'leaf', leaf }, () => 0, 1);
  const probe = (JSON.parse(answer.text) as { probe: Record<string, string> | null }).probe;
  return probe === null
    ? undefined
    : { path: probe['path']!, content: probe['content']!, command: probe['command']! };
}

/** What the probe prints (and its exit status) on the earlier leaves plus `leaf` written with `flaw`. */
async function probed(leaf: number, flaw: Flaw): Promise<{ code: number; out: string }> {
  const probe = rightProbe(csvToJson, leaf)!;
  const dir = await tempDir();
  await writeTree(dir, [
    ...csvToJson.leaves
      .slice(0, leaf + 1)
      .flatMap(
        (spec, j) =>
          writeLeaf(spec, (s) => uniform(j, 31, s), j === leaf ? flaw : 'correct', 'none').files,
      ),
    { path: probe.path, content: probe.content },
  ]);
  return new Promise((resolve) => {
    execFile('/bin/sh', ['-c', probe.command], { cwd: dir, timeout: 60_000 }, (error, out) =>
      resolve({ code: error === null ? 0 : 1, out }),
    );
  });
}

describe("the realistic fake's probes (issue #36)", () => {
  it("run the test a right answer writes from the leaf's criteria, never a hidden test", () => {
    for (const idea of PRODUCT_IDEAS)
      idea.leaves.forEach((leaf, i) => {
        const probe = rightProbe(idea, i);
        const criteria = rightTest(leaf);
        expect(probe === undefined, `${idea.name} leaf ${i}`).toBe(criteria === undefined);
        if (probe === undefined || criteria === undefined) return;
        const file = criteria.path.slice(criteria.path.lastIndexOf('/') + 1);
        // The one file it writes and runs: the criteria's test (JSON-escaped inside the probe).
        expect(probe.content).toContain(`.probe-tests/${file}`);
        expect(probe.content.match(/\.probe-tests\/[\w.-]+/g)).toEqual([`.probe-tests/${file}`]);
        const body = criteria.content.split('\n').filter((l) => /assert|self\.assert/.test(l));
        // (A Python probe holds its files as JSON inside a Python string: escaped twice.)
        const escape = (t: string) =>
          idea.runtime === 'python'
            ? JSON.stringify(JSON.stringify(t).slice(1, -1)).slice(1, -1)
            : JSON.stringify(t).slice(1, -1);
        for (const line of body) expect(probe.content).toContain(escape(line));
        for (const hidden of idea.hiddenTests)
          expect(probe.content).not.toContain(escape(hidden.content));
      });
  });

  it("tell a leaf's misconception from its right code", async () => {
    // csv-to-json's converter: its criteria say missing cells are "", which its misconception breaks.
    const leaf = csvToJson.leaves.findIndex((l) => l.misconception !== undefined);
    const [right, misconceived] = await Promise.all([
      probed(leaf, 'correct'),
      probed(leaf, 'misconception'),
    ]);
    expect(right.code).toBe(0);
    expect(misconceived.code).toBe(0);
    expect(right.out).toMatch(/^ok \d+ - /m);
    expect(right.out).not.toMatch(/not ok/);
    expect(misconceived.out).toMatch(/^not ok \d+ - /m);
    expect(misconceived.out).not.toBe(right.out);
  }, 120_000);
});
