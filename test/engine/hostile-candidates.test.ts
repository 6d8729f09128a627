import { execFileSync } from 'node:child_process';
import { chmod, mkdir, readFile, readdir, symlink, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { SimPlanner } from '../../src/adapters/sim/project-sim.js';
import type { GitWorkspace } from '../../src/adapters/git/git-workspace.js';
import { newNode } from '../../src/core/tree/nodes.js';
import type { Run, RunConfig } from '../../src/core/tree/schema.js';
import { codeCandidate } from '../../src/engine/leaf/candidate.js';
import type { RunContext } from '../../src/engine/run/run-context.js';
import type { Worker, WorkerOutput } from '../../src/ports/worker.js';
import { openWorkspace } from '../../src/app/wiring/wiring.js';
import { baseConfig } from '../helpers/engine.js';
import { useTempDirs } from '../helpers/tmp.js';
import { workspaceSettings } from '../helpers/settings.js';

/**
 * Candidates a reviewer would never accept, table-driven: each is red-flagged on the tree it
 * produces, and nothing outside the repository or under .git (but new objects) changes.
 */
const tempDir = useTempDirs();
const RUN_KEY = 'sk-run-own-key-7'; // a configured key of no known format, short
const AWS_KEY = ['AKIA', 'ABCDEFGHIJKLMNOP'].join('');
const git = (dir: string, ...args: string[]) =>
  execFileSync('git', args, { cwd: dir, encoding: 'utf8' });

/** A repository with a source file, a committed symlink and an executable script. */
async function repository(): Promise<{ dir: string; outside: string; ws: GitWorkspace }> {
  const outside = await tempDir();
  const dir = join(outside, 'repo');
  await mkdir(join(dir, 'src'), { recursive: true });
  await mkdir(join(dir, 'bin'));
  await writeFile(join(dir, 'src', 'a.ts'), 'export const a = 1;\n');
  await writeFile(join(dir, 'bin', 'tool'), '#!/bin/sh\necho tool\n');
  await chmod(join(dir, 'bin', 'tool'), 0o755);
  await symlink('/etc', join(dir, 'src', 'link'));
  git(dir, 'init', '-q', '-b', 'main');
  git(dir, 'add', '.');
  git(dir, '-c', 'user.name=p', '-c', 'user.email=p@x', 'commit', '-q', '-m', 'base');
  return { dir, outside, ws: await openWorkspace(dir, false, workspaceSettings({})) };
}

/** Everything under .git except the object store and the index (which new candidates fill). */
async function gitSnapshot(dir: string): Promise<string> {
  const out: string[] = [];
  const walk = async (rel: string) => {
    for (const e of await readdir(join(dir, '.git', rel), { withFileTypes: true })) {
      const path = join(rel, e.name);
      if (path === 'objects' || path === 'index') continue;
      if (e.isDirectory()) await walk(path);
      else out.push(`${path}:${await readFile(join(dir, '.git', path), 'utf8')}`);
    }
  };
  await walk('');
  return out.sort().join('\n');
}

function context(
  ws: GitWorkspace,
  base: string,
  output: WorkerOutput,
  config: Partial<RunConfig> = {},
) {
  const node = newNode('0', 'root', 1, 0, {
    title: 'Edit the source',
    description: 'Change src/a.ts.',
    acceptance: [],
    files: ['src/'],
    dependsOn: [],
  });
  const run: Run = {
    id: 'r-test',
    idea: 'test',
    createdAt: new Date(0).toISOString(),
    status: 'running',
    config: { ...baseConfig, ...config },
    baseCommit: base,
    rootId: 'root',
    nodes: { '0': node },
    questions: [],
    eventSeq: 0,
  };
  const worker: Worker = { id: 'scripted', run: () => Promise.resolve(output) };
  const ctx: RunContext = {
    run,
    workspace: ws,
    checks: ws,
    landing: ws,
    planner: new SimPlanner({ seed: 1 }),
    worker,
    signal: new AbortController().signal,
    now: () => new Date(0),
    secrets: [RUN_KEY],
    save: () => Promise.resolve(),
    emit: () => undefined,
    paid: (work) => work(),
    services: {
      reserveSession: () => Promise.resolve({ ok: true }),
      wait: () => () => undefined,
    },
    publish: () => undefined,
    checkpoint: () => Promise.resolve(),
    ask: () => Promise.reject(new Error('no questions here')),
  };
  return { ctx, node };
}

const patch = (body: string): WorkerOutput => ({ ok: true, patch: body });
const edits = (...files: [string, string | null][]): WorkerOutput => ({
  ok: true,
  edits: files.map(([path, content]) => ({ path, content })),
});
const added = (path: string, line: string, mode = '100644') =>
  `diff --git a/${path} b/${path}\nnew file mode ${mode}\n--- /dev/null\n+++ b/${path}\n@@ -0,0 +1 @@\n+${line}\n`;

/** A binary file holding a key, as `git diff --binary` writes it. */
function binaryPatch(): string {
  const scratch = execFileSync('mktemp', ['-d'], { encoding: 'utf8' }).trim();
  git(scratch, 'init', '-q', '--initial-branch=main');
  execFileSync('sh', ['-c', `printf '\\000\\001\\002${AWS_KEY}\\000' > src.bin`], { cwd: scratch });
  git(scratch, 'add', 'src.bin');
  const out = git(scratch, 'diff', '--cached', '--binary');
  execFileSync('rm', ['-rf', scratch]);
  return out.replace(/src\.bin/g, 'src/blob.bin');
}

const CASES: [string, () => WorkerOutput, string][] = [
  ['a new symlink', () => patch(added('src/etc', '/etc/passwd', '120000')), 'symlink'],
  [
    'a submodule gitlink',
    () => patch(added('src/sub', `Subproject commit ${'1'.repeat(40)}`, '160000')),
    'submodule',
  ],
  [
    'an executable it did not ask for',
    () => patch(added('src/run.sh', 'rm -rf /', '100755')),
    'executable',
  ],
  [
    'a 50 MB single-line file',
    () => edits(['src/big.txt', 'x'.repeat(50_000_000)]),
    'oversized-file',
  ],
  ['a file name with a newline', () => edits(['src/a\nb.ts', 'x']), 'unsafe-path'],
  [
    'a newline in a patch path',
    () =>
      patch(
        'diff --git "a/src/a\\nb.ts" "b/src/a\\nb.ts"\nnew file mode 100644\n--- /dev/null\n+++ "b/src/a\\nb.ts"\n@@ -0,0 +1 @@\n+x\n',
      ),
    'unsafe-path',
  ],
  ['a bidi control character', () => edits(['src/evil\u202etxt.ts', 'x']), 'unsafe-path'],
  ['a binary blob holding a key', () => patch(binaryPatch()), 'secret'],
  [
    "the run's own key, short and formatless",
    () => edits(['src/a.ts', `const k = "${RUN_KEY}";\n`]),
    'secret',
  ],
  [
    'a rename out of scope',
    () =>
      patch(
        'diff --git a/src/a.ts b/lib/a.ts\nsimilarity index 100%\nrename from src/a.ts\nrename to lib/a.ts\n',
      ),
    'out-of-scope',
  ],
  [
    'a non-git diff applied with -p1 at the root',
    () => patch('--- /dev/null\n+++ src/x\n@@ -0,0 +1 @@\n+hi\n'),
    'out-of-scope',
  ],
  ['..', () => edits(['../escape.txt', 'x']), 'unsafe-path'],
  ['an absolute path', () => edits(['/tmp/maker-abs.txt', 'x']), 'unsafe-path'],
  ['.git/', () => edits(['.git/hooks/pre-commit', '#!/bin/sh\n']), 'unsafe-path'],
  ['.GIT/', () => edits(['.GIT/hooks/pre-commit', '#!/bin/sh\n']), 'unsafe-path'],
  ['.git./', () => edits(['.git./config', 'x']), 'unsafe-path'],
  ['GIT~1/', () => edits(['GIT~1/config', 'x']), 'unsafe-path'],
  [
    'a write through a committed symlink',
    () => edits(['src/link/passwd', 'root::0:0']),
    'tree-build-failed',
  ],
  [
    'a patch through a committed symlink',
    () => patch(added('src/link/passwd', 'root::0:0')),
    'does-not-apply',
  ],
  [
    'a rename into .git/hooks',
    () =>
      patch(
        'diff --git a/src/a.ts b/.git/hooks/post-checkout\nsimilarity index 100%\nrename from src/a.ts\nrename to .git/hooks/post-checkout\n',
      ),
    'does-not-apply',
  ],
  ["MAKER's state file", () => edits(['maker-state.json', '{}']), 'maker-file'],
  [
    "MAKER's calibration file (read by --confidence auto)",
    () => edits(['maker-calibration.json', '{"recommendedK":1}']),
    'maker-file',
  ],
  [
    '.git/ spelled with a zero-width joiner (HFS+ ignores it)',
    () => edits(['.g\u200cit/config', 'x']),
    'unsafe-path',
  ],
  ['a zero-width space disguising a name', () => edits(['src/a\u200b.ts', 'x']), 'unsafe-path'],
  ['a CI workflow', () => edits(['.github/workflows/x.yml', 'on: push\n']), 'ci-workflow'],
  ['a file under an existing file', () => edits(['src/a.ts/inner.ts', 'x']), 'tree-build-failed'],
  ['the same file twice', () => edits(['src/b.ts', 'x'], ['./src/b.ts', 'y']), 'duplicate-path'],
  // Failed at main: 5,000 files were built into a tree (an open-file limit turned it into EMFILE).
  [
    'more files than the documented limit (edits)',
    () => edits(...Array.from({ length: 5000 }, (_, i): [string, string] => [`src/f${i}.ts`, 'x'])),
    'too-many-files',
  ],
  [
    'more files than the documented limit (a patch)',
    () => patch(Array.from({ length: 5000 }, (_, i) => added(`src/p${i}.ts`, 'x')).join('')),
    'too-many-files',
  ],
  // Failed at main: files were counted by their `diff --git` lines, which a plain diff (as
  // `diff -u` writes it, and `git apply` takes) has none of.
  [
    'more files than the documented limit (a plain diff, no `diff --git` lines)',
    () =>
      patch(
        Array.from(
          { length: 5000 },
          (_, i) => `--- /dev/null\n+++ b/src/q${i}.ts\n@@ -0,0 +1 @@\n+x\n`,
        ).join(''),
      ),
    'too-many-files',
  ],
  [
    'a package.json that does not parse',
    () => edits(['src/package.json', '{\n  "name": "a",\n  # ... rest unchanged\n}\n']),
    'does-not-parse',
  ],
  [
    'source escaped twice (literal \\n, no newline)',
    () => edits(['src/c.py', 'import sys\\n\\ndef main():\\n    print(sys.argv)\\n']),
    'over-escaped',
  ],
  [
    'a whole-file rewrite that stands "// ... rest unchanged" for code',
    () => edits(['src/a.ts', 'export const a = 2;\n// ... rest unchanged\n']),
    'omission-marker',
  ],
];

describe('hostile candidates', () => {
  it.each(CASES)(
    'red-flags %s, touching nothing outside the repository or under .git',
    async (_name, output, rule) => {
      const { dir, outside, ws } = await repository();
      const base = (await ws.resolve('main')) as string;
      const before = {
        git: await gitSnapshot(dir),
        outside: await readdir(outside),
        etc: await readdir('/etc'),
      };
      const { ctx, node } = context(ws, base, output(), { maxFileBytes: 1_000_000 });
      const result = await codeCandidate(
        ctx,
        node,
        { context: {} as never, baseCommit: base, branch: 'b' },
        0,
        ['src/'],
      );
      expect(result.ok).toBe(false);
      if (!result.ok) expect(result.flags.map((f) => f.rule)).toContain(rule);
      // A message shows a hostile name escaped, never with its control or invisible characters.
      if (!result.ok)
        for (const f of result.flags)
          expect(f.message).not.toMatch(/[\n\u200b-\u200f\u202a-\u202e\u2066-\u2069]/u);
      expect(await gitSnapshot(dir)).toBe(before.git);
      expect(await readdir(outside)).toEqual(before.outside);
      expect(await readdir('/etc')).toEqual(before.etc);
      expect(git(dir, 'status', '--porcelain')).toBe('');
    },
  );

  it.each([
    ['./src/convert.py', 'src/convert.py'],
    ['src//x.ts', 'src/x.ts'],
    ['src/./y.ts', 'src/y.ts'],
  ])('makes the harmless spelling %s canonical', async (path, canonical) => {
    const { ws } = await repository();
    const base = (await ws.resolve('main')) as string;
    const { ctx, node } = context(ws, base, edits([path, 'print(1)\n']));
    const result = await codeCandidate(
      ctx,
      node,
      { context: {} as never, baseCommit: base, branch: 'b' },
      0,
      ['src/'],
    );
    expect(result).toMatchObject({ ok: true });
    if (result.ok) expect(await ws.listFiles(result.tree ?? result.key)).toContain(canonical);
  });

  it('lets a run allow what a subtask legitimately needs', async () => {
    const { ws } = await repository();
    const base = (await ws.resolve('main')) as string;
    const script = patch(added('src/build.sh', 'echo build', '100755'));
    const allowed = context(ws, base, script, {
      allow: { executables: ['src/*.sh'], symlinks: [], workflows: false },
    });
    const ok = await codeCandidate(
      allowed.ctx,
      allowed.node,
      { context: {} as never, baseCommit: base, branch: 'b' },
      0,
      ['src/'],
    );
    expect(ok).toMatchObject({ ok: true });
    // Rewriting an executable keeps its bit, without any allowance.
    const rewrite = context(ws, base, edits(['bin/tool', '#!/bin/sh\necho new\n']));
    const kept = await codeCandidate(
      rewrite.ctx,
      rewrite.node,
      { context: {} as never, baseCommit: base, branch: 'b' },
      0,
      ['bin/'],
    );
    expect(kept).toMatchObject({ ok: true });
    if (kept.ok)
      expect(
        git(
          (await ws.gitDir()).replace(/\/\.git$/, ''),
          'ls-tree',
          kept.tree ?? kept.key,
          'bin/tool',
        ),
      ).toMatch(/^100755/);
  });
});

describe('an integration candidate', () => {
  /** Two branches that both change src/a.ts and src/b.ts, merged: markers in both files. */
  async function conflicted(ws: GitWorkspace, dir: string) {
    const side = async (branch: string, word: string) => {
      git(dir, 'checkout', '-q', '-b', branch, 'main');
      await writeFile(join(dir, 'src', 'a.ts'), `export const a = '${word}';\n`);
      await writeFile(join(dir, 'src', 'b.ts'), `export const b = '${word}';\n`);
      git(dir, 'add', '.');
      git(dir, '-c', 'user.name=p', '-c', 'user.email=p@x', 'commit', '-q', '-m', word);
      return (await ws.resolve(branch)) as string;
    };
    await writeFile(join(dir, 'src', 'b.ts'), 'export const b = 0;\n');
    git(dir, 'add', '.');
    git(dir, '-c', 'user.name=p', '-c', 'user.email=p@x', 'commit', '-q', '-m', 'b');
    const ours = await side('ours', 'ours');
    const theirs = await side('theirs', 'theirs');
    git(dir, 'checkout', '-q', 'main');
    const merged = await ws.merge(ours, theirs);
    expect(merged.ok).toBe(false);
    return merged.tree;
  }

  it('is red-flagged when it leaves conflict markers in a conflicted file it did not rewrite', async () => {
    const { dir, ws } = await repository();
    const tree = await conflicted(ws, dir);
    const conflicts = ['src/a.ts', 'src/b.ts'];
    const task = {
      context: {} as never,
      baseCommit: tree,
      branch: 'b',
      integration: { conflicts, ours: [], theirs: [] },
    };
    const lazy = context(ws, tree, edits(['src/a.ts', "export const a = 'both';\n"]));
    const left = await codeCandidate(lazy.ctx, lazy.node, task, 0, conflicts);
    expect(left.ok).toBe(false);
    if (!left.ok) expect(left.flags.map((f) => f.rule)).toContain('conflict-markers');

    const whole = context(
      ws,
      tree,
      edits(['src/a.ts', "export const a = 'both';\n"], ['src/b.ts', "export const b = 'both';\n"]),
    );
    expect(await codeCandidate(whole.ctx, whole.node, task, 0, conflicts)).toMatchObject({
      ok: true,
    });
  });
});
