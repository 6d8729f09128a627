import { readdirSync, readFileSync } from 'node:fs';
import { join, relative, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';

/**
 * The engine's steps take the workspace by role (`RunContext`): `workspace` is the repository
 * (objects, trees, commits, refs: the type has nothing else), `checks` runs commands in the sandbox
 * and `landing` moves the default branch. The type keeps a step off what it was not given; this
 * keeps the two roles with effects beyond the repository's objects reached from one place each:
 * the check runner from `checks.ts` alone (every other step runs a command through its `runCheck`,
 * which redacts the output and runs one command on one tree once), the landing from `land/`. A
 * new user is a choice to make here. It reads the text: a context named other than `ctx` escapes it.
 */
const ROLES: Readonly<Record<string, readonly string[]>> = {
  checks: ['engine/checks/checks.ts'],
  landing: ['engine/land/finish.ts', 'engine/land/github.ts'],
};

const SRC = resolve('src');

function files(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) =>
    e.isDirectory() ? files(join(dir, e.name)) : e.name.endsWith('.ts') ? [join(dir, e.name)] : [],
  );
}

describe("the workspace's roles in the engine", () => {
  for (const [role, users] of Object.entries(ROLES))
    it(`${role}: used by ${users.join(' and ')} alone`, () => {
      const use = new RegExp(
        `\\bctx\\.${role}\\b|\\{[^}]*\\b${role}\\b[^}]*\\}\\s*=\\s*ctx\\b(?!\\.)`,
      );
      const found = files(join(SRC, 'engine'))
        .filter((f) => use.test(readFileSync(f, 'utf8')))
        .map((f) => relative(SRC, f))
        .sort();
      expect(found).toEqual([...users].sort());
    });
});
