import { execFileSync } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { failureExcerpt } from '../../src/engine/checks/checks.js';
import { useTempDirs } from '../helpers/tmp.js';

const tempDir = useTempDirs();

/** The output of `node --test` on a file whose first test fails as `body` does (exit 1). */
async function nodeTest(body: string): Promise<string> {
  const dir = await tempDir();
  const file = join(dir, 'x.test.mjs');
  writeFileSync(
    file,
    `import { test } from 'node:test';\nimport assert from 'node:assert/strict';\ntest('deletes twice', async () => { ${body} });\ntest('lists', () => {});\n`,
  );
  try {
    execFileSync(process.execPath, ['--test', file], { encoding: 'utf8', stdio: 'pipe' });
  } catch (error) {
    const e = error as { stdout: string; stderr: string };
    return e.stdout + e.stderr;
  }
  throw new Error('the test passed');
}

describe("a failed check's excerpt in its red flag", () => {
  it("says which node:test test failed and how, where the report's end holds only its counts", async () => {
    const output = await nodeTest('assert.equal(404, 204);');
    // The old excerpt, the last 300 characters, is the report's counts and a passing test.
    expect(output.slice(-300)).not.toContain('404');
    const said = failureExcerpt(output);
    expect(said).toContain('not ok 1 - deletes twice');
    expect(said).toMatch(/error: Expected values to be strictly equal: 404 !== 204/);
    expect(said).toMatch(/expected: 204 actual: 404/);
    expect(said).not.toContain('stack');
    expect(said).toContain('# fail 1');
    expect(said.length).toBeLessThan(330);
  });

  it('keeps the end alone when it already says why (a traceback), or when nothing names an error', () => {
    const traceback =
      'Traceback (most recent call last):\n  File "x.py", line 2\nSyntaxError: bad\n';
    expect(failureExcerpt(traceback)).toBe(traceback);
    const plain = `${'x'.repeat(500)}\nexit 3\n`;
    expect(failureExcerpt(plain)).toBe(plain.slice(-300));
  });

  it('puts a line naming an error before the end when the end does not hold it', () => {
    const output = `start\nTypeError: boom\n${'y'.repeat(500)}`;
    const said = failureExcerpt(output);
    expect(said.startsWith('TypeError: boom … ')).toBe(true);
    expect(said.endsWith('y'.repeat(100))).toBe(true);
    expect(said.length).toBeLessThan(330);
  });
});
