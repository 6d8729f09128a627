import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { useTempDirs } from '../helpers/tmp.js';
import { maker } from '../helpers/cli.js';
import { hasScript, useTerminals } from '../helpers/terminal.js';

const tempDir = useTempDirs();
const terminal = useTerminals();

describe('questions at a terminal (--hitl tty)', () => {
  it.runIf(hasScript)('asks on the terminal and takes the typed answer', async () => {
    const dir = await tempDir();
    // A real pseudo-terminal; "2" is typed at the veto question when it appears.
    const t = terminal([
      'run',
      'a todo app',
      '--dir',
      dir,
      '--worker',
      'sim',
      '--no-checks',
      '--max-depth',
      '1',
      '--seed',
      '5',
      '--hitl',
      'tty',
    ]);
    await t.seen(/Choose a number/);
    t.type('2\n');
    await t.exited;
    const screen = t.screen().replace(/\r/g, '');
    expect(screen).toMatch(/\? MAKER finished "a todo app"/);
    expect(screen).toMatch(/\n {3}src\/\S+ +\| +\d+ \++\n/); // the veto shows what changed
    expect(screen).toMatch(/\d+ files changed, \d+ insertions\(\+\)/);
    expect(screen).toMatch(/1\) Accept: merge into main/);
    expect(screen).toMatch(/Vetoed: main is untouched/);
  });
});

describe('maker bench mcp-start', () => {
  it('times cold starts of the bundled server to tools/list', async () => {
    const { code, stdout } = await maker(['bench', 'mcp-start', '--runs', '2', '--json']);
    expect(code).toBe(0);
    const report = JSON.parse(stdout) as {
      runs: number;
      medianMs: number;
      nodeMedianMs: number;
      ratio: number;
    };
    expect(report.runs).toBe(2);
    expect(report.medianMs).toBeGreaterThan(0);
    // The reference, `node -e 0`, is measured in the same run, and the ratio is of the two medians.
    expect(report.nodeMedianMs).toBeGreaterThan(0);
    expect(report.ratio).toBeCloseTo(report.medianMs / report.nodeMedianMs, 1);
  });
});

describe('maker bench tree', () => {
  it('measures scheduling against the ideal and the state save', async () => {
    const { code, stdout } = await maker([
      'bench',
      'tree',
      '--leaves',
      '12',
      '--latency-ms',
      '5',
      '--state-nodes',
      '300',
      '--json',
    ]);
    expect(code).toBe(0);
    const report = JSON.parse(stdout) as {
      leaves: number;
      status: string;
      ratio: number;
      idealMs: number;
      stateSave: { nodes: number; medianMs: number };
    };
    expect(report).toMatchObject({ leaves: 12, status: 'done', stateSave: { nodes: 300 } });
    expect(report.ratio).toBeGreaterThanOrEqual(0.99); // nothing beats the ideal
    expect(report.idealMs).toBeGreaterThan(0);
  });
});

// Whole simulated runs, whose checks run by default (sandboxed): a generous ceiling.
describe('maker demo / run / status / answer / resume', { timeout: 120_000 }, () => {
  it('demo runs the whole pipeline offline and ends with one JSON object', async () => {
    // Proves: the whole pipeline (clarify, decomposition, votes, sandboxed checks where a sandbox
    // works, the fake GitHub, the veto, landing) runs offline and prints one JSON summary. Seed 35,
    // the smallest tree of seeds 1-40 (5 nodes, 3 leaves; seed 3 had 12): the same steps,
    // fewer of each.
    const dir = await tempDir();
    const { code, stdout } = await maker(['demo', '--dir', dir, '--seed', '35', '--json']);
    expect(code).toBe(0);
    const result = JSON.parse(stdout) as Record<string, unknown>;
    for (const field of [
      'runId',
      'status',
      'nodes',
      'leaves',
      'samples',
      'flagged',
      'questions',
      'rootBranch',
      'finalCommit',
      'treeHash',
    ])
      expect(result).toHaveProperty(field);
    expect(result).toMatchObject({ status: 'done', landed: true });
    expect(result['nodes']).toBeGreaterThan(1); // decomposed, not done in one leaf
    expect(result['questions']).toBeGreaterThanOrEqual(2); // the clarify and the final veto, answered automatically
  });

  it('defers questions headless, takes answers with `maker answer`, and finishes with `maker resume`', async () => {
    const dir = await tempDir();
    const first = await maker([
      'run',
      'a notes app',
      '--dir',
      dir,
      '--worker',
      'sim',
      '--hitl',
      'defer',
      '--seed',
      '5',
      // The questions' round trip is under test here, not the checks (test/cli/run-allowances.test.ts)
      // nor the tree's size.
      '--no-checks',
      '--max-depth',
      '1',
    ]);
    expect(first.code).toBe(4);
    expect(first.stdout).toMatch(/Waiting for answers:\n {2}q-root-veto \(veto\)/);
    const status = await maker(['status', '--dir', dir]);
    expect(status.stdout).toMatch(/^root \[done, branch\]/m);
    expect(status.stdout).toMatch(/q-root-veto \(veto\): /);
    const answered = await maker(['answer', '--dir', dir, 'q-root-veto', 'accept']);
    expect(answered.code).toBe(0);
    const resumed = await maker(['resume', '--dir', dir, '--json']);
    expect(resumed.code).toBe(0);
    expect(JSON.parse(resumed.stdout)).toMatchObject({ status: 'done', landed: true });
    const trace = await maker(['status', '--dir', dir, '--trace']);
    expect(trace.stdout).toMatch(/answered q-root-veto: accept/);
    const journal = await readFile(join(dir, 'maker-journal.jsonl'), 'utf8');
    expect(journal.split('\n').filter(Boolean).length).toBeGreaterThan(20);
  });

  it('never touches a corrupt, foreign or newer state file, and says which file and why', async () => {
    for (const [content, message] of [
      ['{"$schemaVersion": 1, "runs": {', /not valid JSON/],
      ['{"hello": "world"}', /not a MAKER state file/],
      ['{"$schemaVersion": 99, "runs": {}}', /newer than this program understands/],
    ] as const) {
      const dir = await tempDir();
      const path = join(dir, 'maker-state.json');
      await writeFile(path, content);
      const run = await maker([
        'run',
        'anything',
        '--dir',
        dir,
        '--worker',
        'sim',
        '--no-checks',
        '--hitl',
        'auto',
      ]);
      expect(run.code).toBe(1);
      expect(run.stderr).toContain(path);
      expect(run.stderr).toMatch(message);
      expect(await readFile(path, 'utf8')).toBe(content);
      const status = await maker(['status', '--dir', dir]);
      expect(status.stderr).toMatch(message);
    }
  });

  it('refuses a workspace another live maker process owns, and takes over a dead one’s lock', async () => {
    const dir = await tempDir();
    await writeFile(join(dir, 'maker-state.json.lock'), `${process.pid}\n`);
    const refused = await maker([
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
    expect(refused.code).toBe(1);
    expect(refused.stderr).toMatch(
      /Another maker process \(pid \d+\) is working on this workspace/,
    );
    await writeFile(join(dir, 'maker-state.json.lock'), '999999\n');
    const taken = await maker([
      'run',
      'x',
      '--dir',
      dir,
      '--worker',
      'sim',
      '--no-checks',
      '--max-depth',
      '1',
      '--hitl',
      'auto',
      '--json',
    ]);
    expect(taken.code).toBe(0);
    await expect(readFile(join(dir, 'maker-state.json.lock'), 'utf8')).rejects.toThrow();
  });

  it('explains what to do for missing keys and bad flags', async () => {
    const dir = await tempDir();
    const noKey = await maker(['run', 'x', '--dir', dir, '--worker', 'gemini', '--hitl', 'auto'], {
      GEMINI_API_KEY: '',
    });
    expect(noKey.code).toBe(2);
    expect(noKey.stderr).toMatch(
      /gemini worker cannot start yet:\n {2}- GEMINI_API_KEY is not set/,
    );
    expect((await maker(['run', '--dir', dir])).stderr).toMatch(/needs an idea/);
    expect(
      (await maker(['run', 'x', '--dir', dir, '--worker', 'sim', '--no-checks', '--hitl', 'tty']))
        .stderr,
    ).toMatch(/--hitl tty needs a terminal/);
    expect((await maker(['resume', '--dir', dir])).stderr).toMatch(
      /Nothing to resume|No MAKER runs/,
    );
  });
});
