import { execFileSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdir, readFile, readdir, symlink, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { startFakeGemini, type FakeGemini } from '../../src/offline/fake-gemini.js';
import { projectModel } from '../helpers/project-model.js';
import { useTempDirs } from '../helpers/tmp.js';
import { bareEnv, maker } from '../helpers/cli.js';

const tempDir = useTempDirs();
let gemini: FakeGemini | undefined;
afterEach(async () => {
  await gemini?.close();
  gemini = undefined;
});

const git = (dir: string, ...args: string[]) =>
  execFileSync('git', ['-c', 'init.defaultBranch=main', ...args], {
    cwd: dir,
    encoding: 'utf8',
    env: {
      ...bareEnv(),
      GIT_AUTHOR_NAME: 'Person',
      GIT_AUTHOR_EMAIL: 'p@example.com',
      GIT_COMMITTER_NAME: 'Person',
      GIT_COMMITTER_EMAIL: 'p@example.com',
    },
  });

/** An existing folder full of a person's files, not a git repository. */
async function personsFolder(): Promise<string> {
  const dir = await tempDir();
  await writeFile(join(dir, 'notes.txt'), 'my notes\n');
  await mkdir(join(dir, 'drafts'));
  await writeFile(join(dir, 'drafts', 'idea.md'), '# idea\n');
  return dir;
}

async function expectUntouched(dir: string): Promise<void> {
  expect((await readdir(dir)).sort()).toEqual(['drafts', 'notes.txt']);
  expect(await readFile(join(dir, 'notes.txt'), 'utf8')).toBe('my notes\n');
}

describe('no silent simulation', () => {
  it('with no worker and no key, refuses, names the ways forward, and creates nothing', async () => {
    const dir = await personsFolder();
    const { code, stdout, stderr } = await maker(['run', 'a todo list CLI', '--dir', dir]);
    expect(code).toBe(2);
    expect(stdout).toBe('');
    expect(stderr).toMatch(/No worker was chosen and GEMINI_API_KEY is not set/);
    expect(stderr).toMatch(/export GEMINI_API_KEY=/);
    expect(stderr).toMatch(/--worker sim for a simulation/);
    expect(stderr).toMatch(/`maker demo`/);
    await expectUntouched(dir);
  });

  it('with no worker and a Gemini key, uses the gemini worker', async () => {
    gemini = await startFakeGemini(projectModel);
    const dir = await tempDir();
    const env = {
      ...bareEnv(),
      GEMINI_API_KEY: 'AIza-test-key-0123456789',
      GOOGLE_GEMINI_BASE_URL: gemini.baseUrl,
    };
    const result = await maker(
      ['run', 'a csv to json converter', '--dir', dir, '--hitl', 'auto', '--json'],
      env,
    );
    expect(result.code).toBe(0);
    expect(JSON.parse(result.stdout)).toMatchObject({
      worker: 'gemini',
      simulated: false,
      status: 'done',
    });
    expect(gemini.requests.length).toBeGreaterThan(0);
    // Real work carries no simulation marks.
    expect(git(dir, 'log', '--format=%B', 'main')).not.toMatch(/simulated/i);
  });

  it('says "simulated" in the start line, the summary, the JSON summary, status and every commit', async () => {
    const dir = await tempDir();
    const text = await maker([
      'run',
      'a notes app',
      '--dir',
      dir,
      '--worker',
      'sim',
      '--no-checks',
      '--hitl',
      'auto',
    ]);
    expect(text.code).toBe(0);
    expect(text.stderr).toMatch(
      /^maker: started SIMULATED run r[\w-]+ in .* \(worker sim: simulated plans and placeholder files, not real work\)$/m,
    );
    expect(text.stdout).toMatch(/^SIMULATED run r[\w-]+: done/);
    expect(text.stdout).toMatch(/placeholders, not real work/);
    const status = await maker(['status', '--dir', dir]);
    expect(status.stdout.split('\n')[0]).toMatch(/ — SIMULATED \(worker sim/);
    expect(JSON.parse((await maker(['status', '--dir', dir, '--json'])).stdout)).toMatchObject({
      simulated: true,
    });
    // Every commit the run made (all but the repository's empty first one) is marked.
    const commits = git(dir, 'log', '--format=%s%x00%b%x01', 'main')
      .split('\x01')
      .map((c) => c.trim())
      .filter((c) => c !== '' && !c.startsWith('Initial commit'));
    expect(commits.length).toBeGreaterThan(5);
    for (const commit of commits) {
      expect(commit).toMatch(/^\[simulated\] /);
      expect(commit).toMatch(/Maker-Simulated: yes$/);
    }
    // The label is under test, not the checks: the demo runs without a sandbox (unverified).
    const json = await maker(['demo', '--dir', await tempDir(), '--json'], {
      ...bareEnv(),
      MAKER_SANDBOX: 'none',
    });
    expect(JSON.parse(json.stdout)).toMatchObject({ simulated: true, worker: 'sim' });
  });
});

describe('validate first, then act', () => {
  it.each([
    [['--worker', 'sim', '--k', '0'], /--k must be a whole number from 1 to 20/],
    [['--worker', 'sim', '--seed', '-1'], /--seed must be a whole number ≥ 0/],
    [['--worker', 'sim', '--concurrency', 'many'], /--concurrency must be a whole number/],
    [
      ['--worker', 'gemini'],
      /A run with the gemini worker cannot start yet:\n {2}- GEMINI_API_KEY is not set/,
    ],
    [
      ['--worker', 'sim', '--jules-plan', 'pro'],
      /--jules-… flags apply to the jules and jules-fake workers only, not to /,
    ],
  ])('%j in a folder of a person’s files: refused, nothing created', async (flags, message) => {
    const dir = await personsFolder();
    const { code, stderr } = await maker(['run', 'a todo list CLI', '--dir', dir, ...flags]);
    expect(code).toBe(2);
    expect(stderr).toMatch(message);
    expect(stderr).not.toMatch(/\n\s+at |unexpected error/);
    await expectUntouched(dir);
  });

  it('--run-checks where no sandbox works: refused before anything is created', async () => {
    const bin = await tempDir();
    for (const tool of ['git', 'sh', 'tar'])
      await symlink(
        execFileSync('sh', ['-c', `command -v ${tool}`], { encoding: 'utf8' }).trim(),
        join(bin, tool),
      );
    const dir = await personsFolder();
    const { code, stderr } = await maker(
      ['run', 'x', '--dir', dir, '--worker', 'sim', '--run-checks'],
      { ...bareEnv(), PATH: bin },
    );
    expect(code).toBe(2);
    expect(stderr).toMatch(
      /A run with the sim worker cannot start yet:\n {2}- Checks run commands a model proposed/,
    );
    await expectUntouched(dir);
  });

  it('--worker jules with nothing set reports every missing prerequisite at once, naming jules', async () => {
    const dir = await personsFolder();
    const { code, stderr } = await maker(['run', 'x', '--dir', dir, '--worker', 'jules']);
    expect(code).toBe(2);
    expect(stderr).toMatch(/^maker: A run with the jules worker cannot start yet:\n/);
    expect(stderr).toMatch(/^ {2}- JULES_API_KEY is not set/m);
    expect(stderr).toMatch(
      /^ {2}- GEMINI_API_KEY is not set, Vertex AI is not configured and no `gemini` is on the PATH: the jules worker also needs Gemini/m,
    );
    expect(stderr).toMatch(/^ {2}- The jules worker needs the repository on GitHub/m);
    expect(stderr).not.toMatch(/gemini worker/);
    expect(stderr).toMatch(/Nothing was created or changed\.$/m);
    await expectUntouched(dir);
  });

  it('--dir pointing at a file is a usage error for every command, not a stack trace', async () => {
    const dir = await tempDir();
    const file = join(dir, 'a-file.txt');
    await writeFile(file, 'x\n');
    for (const args of [
      ['run', 'x', '--worker', 'sim', '--no-checks'],
      ['demo'],
      ['resume'],
      ['answer', 'q-root-veto', 'accept'],
      ['status'],
    ]) {
      const { code, stderr } = await maker([...args, '--dir', file]);
      expect(code, args.join(' ')).toBe(2);
      expect(stderr).toContain(`--dir ${file} is a file, not a directory`);
      expect(stderr).not.toMatch(/unexpected error|EEXIST|ENOTDIR|\n\s+at /);
    }
    expect(await readFile(file, 'utf8')).toBe('x\n');
  });

  it('a missing directory for resume, answer and status is a usage error', async () => {
    const missing = join(await tempDir(), 'nowhere');
    for (const args of [['resume'], ['answer', 'q-root-veto', 'accept'], ['status']]) {
      const { code, stderr } = await maker([...args, '--dir', missing]);
      expect(code, args.join(' ')).toBe(2);
      expect(stderr).toContain(`--dir ${missing} does not exist`);
    }
    expect(existsSync(missing)).toBe(false);
  });

  it('announces at the start a landing that will be refused (uncommitted changes on the default branch)', async () => {
    const dir = await tempDir();
    git(dir, 'init', '-q', '--initial-branch=main');
    await writeFile(join(dir, 'README.md'), 'mine\n');
    git(dir, 'add', 'README.md');
    git(dir, 'commit', '-q', '-m', 'start');
    await writeFile(join(dir, 'README.md'), 'mine, edited\n');
    const { code, stderr } = await maker([
      'run',
      'x',
      '--dir',
      dir,
      '--worker',
      'sim',
      '--no-checks',
      '--hitl',
      'auto',
    ]);
    const note = stderr.indexOf(
      'maker: note: main is checked out with uncommitted changes (README.md): the result cannot land on it',
    );
    expect(note).toBeGreaterThanOrEqual(0);
    expect(note).toBeLessThan(stderr.indexOf('maker: started'));
    // As announced, the landing is refused and the person's change is kept.
    expect(code).toBe(1);
    expect(await readFile(join(dir, 'README.md'), 'utf8')).toBe('mine, edited\n');
  });
});
