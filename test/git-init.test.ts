import { readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';

function files(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) =>
    e.isDirectory() ? files(join(dir, e.name)) : e.name.endsWith('.ts') ? [join(dir, e.name)] : [],
  );
}

/**
 * Every `git init` in the sources and tests names its first branch, so git never prints its
 * "hint: Using 'master' as the name for the initial branch" advice into test output.
 */
describe('git init', () => {
  it('always names the initial branch', () => {
    const unnamed: string[] = [];
    for (const file of [...files('src'), ...files('test')])
      readFileSync(file, 'utf8')
        .split('\n')
        .forEach((line, i) => {
          if (
            /['"]init['"]|\.init\(/.test(line) &&
            !/initial-branch|['"]-b['"]|init\.defaultBranch/.test(line) &&
            // Gemini CLI's stream-json `init` event is not a git command.
            !/\btype\b/.test(line)
          )
            unnamed.push(`${file}:${i + 1}: ${line.trim()}`);
        });
    expect(unnamed).toEqual([]);
  });
});
