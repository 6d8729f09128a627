import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { useSharedTempDirs, useTempDirs } from '../helpers/tmp.js';
import { maker } from '../helpers/cli.js';

const tempDir = useTempDirs();
const sharedDir = useSharedTempDirs();

/** For tests of what status and progress say, not of the checks: a demo without a sandbox (unverified). */
const NO_SANDBOX = { MAKER_SANDBOX: 'none' };

const runIdOf = (text: string) => /run (r[\w-]+)/i.exec(text)?.[1] as string;

/**
 * One demo (seed 1, composed locally: GitHub is not the subject) that the progress-line and the
 * plan-summary tests both read: made by whichever runs first, never changed after.
 */
let demoOnce: Promise<{ dir: string; demo: Awaited<ReturnType<typeof maker>> }> | undefined;
const sharedDemo = () =>
  (demoOnce ??= (async () => {
    const dir = await sharedDir();
    const demo = await maker(['demo', '--dir', dir, '--seed', '1', '--local-only'], NO_SANDBOX);
    return { dir, demo };
  })());

// Each test runs a whole simulated run (the veto's with its checks, sandboxed): a generous ceiling.
// What status says does not depend on the tree's size: every run is one level deep (the demo's
// plans are read as the demo makes them).
describe('maker status tells the truth', { timeout: 120_000 }, () => {
  it('shows a run whose process died as interrupted, with the resume line; a live owner as running', async () => {
    const dir = await tempDir();
    // Killed (SIGKILL) with the run under way: its state still says "running".
    const killed = await maker(
      [
        'run',
        'a csv tool',
        '--dir',
        dir,
        '--worker',
        'sim',
        '--no-checks',
        '--max-depth',
        '1',
        '--hitl',
        'auto',
      ],
      {
        MAKER_CRASH_AT: 'land:intent-saved',
      },
    );
    expect(killed.code).toBeNull();
    const runId = runIdOf(killed.stderr);
    const state = JSON.parse(await readFile(join(dir, 'maker-state.json'), 'utf8')) as {
      runs: Record<string, { status: string }>;
    };
    expect(state.runs[runId]?.status).toBe('running');
    const status = await maker(['status', '--dir', dir]);
    expect(status.stdout.split('\n')[0]).toMatch(
      / — interrupted \(its maker process is gone; nothing is lost\) — /,
    );
    expect(status.stdout).toContain(`Continue with: maker resume --dir ${dir} --run ${runId}`);
    expect(JSON.parse((await maker(['status', '--dir', dir, '--json'])).stdout)).toMatchObject({
      status: 'running',
      interrupted: true,
      next: `Continue with: maker resume --dir ${dir} --run ${runId}`,
    });
    // A live process holding the workspace: running, and who it is.
    await writeFile(join(dir, 'maker-state.json.lock'), `${process.pid}\n`);
    const live = await maker(['status', '--dir', dir]);
    expect(live.stdout.split('\n')[0]).toMatch(
      new RegExp(` — running \\(maker, pid ${process.pid}\\) — `),
    );
    expect(live.stdout).not.toContain('Continue with');
  });

  it('after the last answer, says the run is ready to resume, with the command', async () => {
    const dir = await tempDir();
    const first = await maker([
      'run',
      'a notes app',
      '--dir',
      dir,
      '--worker',
      'sim',
      '--no-checks',
      '--max-depth',
      '1',
      '--hitl',
      'defer',
    ]);
    expect(first.code).toBe(4);
    const runId = runIdOf(first.stdout);
    const answered = await maker(['answer', '--dir', dir, 'q-root-veto', 'accept']);
    expect(answered.stdout).toBe(
      `Answered q-root-veto: accept.\nNothing else is pending: run ${runId} is ready to resume. Continue with: maker resume --dir ${dir} --run ${runId}\n`,
    );
    const status = await maker(['status', '--dir', dir]);
    expect(status.stdout.split('\n')[0]).toMatch(
      / — ready to resume \(every question is answered\) — /,
    );
    expect(status.stdout).toContain(`Continue with: maker resume --dir ${dir} --run ${runId}`);
    // Answering it again says it was answered, and with what, not that there is no such question.
    const again = await maker(['answer', '--dir', dir, 'q-root-veto', 'veto']);
    expect(again.code).toBe(2);
    expect(again.stderr).toBe(
      `maker: Question q-root-veto of run ${runId} was already answered: accept. See: maker status --dir ${dir}\n`,
    );
  });

  it('shows the terminal veto with a diffstat of the changed files', async () => {
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
      // Checks on (the veto says it was verified), on a tree of one level: what is tested is the
      // veto's diffstat.
      '--max-depth',
      '1',
    ]);
    expect(first.stdout).toMatch(
      /q-root-veto \(veto\): .*\(\d+ files changed\)\. Verified: .*Land it on main\?\n(\s+src\/\S+ +\| +\d+ \++\n)+(\s+… and \d+ more files\n)?\s+\d+ files changed, \d+ insertions\(\+\), 0 deletions\(-\)\n\s+accept: Accept/,
    );
    const status = await maker(['status', '--dir', dir]);
    expect(status.stdout).toMatch(
      /Pending questions:\n {2}q-root-veto \(veto\).*\n {4} src\/\S+ +\| +\d+ \++\n/,
    );
  });

  it('prints plain progress lines when stderr is not a terminal, with the summary’s own counts', async () => {
    const { dir, demo } = await sharedDemo();
    expect(demo.code).toBe(0);
    expect(demo.stderr).toMatch(
      /^maker: node [\w-]+ done: ".+" committed · run totals \d+ samples/m,
    );
    expect(demo.stderr).toMatch(/^maker: node [\w-]+ merged into [\w-]+ · /m);
    expect(demo.stderr).toMatch(/^maker: question q-root-clarify-0 \(clarify\): /m);
    // The demo answers its questions itself, and says so.
    expect(demo.stderr).toMatch(
      /^maker: question q-root-clarify-0 answered automatically \(--hitl auto\): opt-1 /m,
    );
    expect(demo.stderr).toMatch(
      /^maker: question q-root-veto answered automatically \(--hitl auto\): accept \(Accept: /m,
    );
    const end =
      /^maker: run r[\w-]+ ended: done · run totals (\d+) samples \((\d+) red-flagged\)/m.exec(
        demo.stderr,
      );
    const summary = /done — \d+ nodes \(\d+ leaves\), (\d+) samples, (\d+) red-flagged/.exec(
      demo.stdout,
    );
    expect(end?.slice(1)).toEqual(summary?.slice(1));
    // Every sample the journal saw drawn is counted, those of a vote that started over included.
    const journal = (await readFile(join(dir, 'maker-journal.jsonl'), 'utf8'))
      .split('\n')
      .filter((l) => /"type":"sample-(drawn|flagged)"/.test(l));
    expect(journal.length).toBe(Number(summary?.[1]));
    expect(demo.stderr).not.toContain('\r');
  });

  it('shows candidate plans as readable summaries, each described once', async () => {
    const { dir, demo } = await sharedDemo();
    expect(demo.code).toBe(0);
    const node = await maker(['status', '--dir', dir, '--node', 'root']);
    expect(node.stdout).toMatch(
      /split \(attempt 2; \d+ samples drawn before\): decided, \d+ : \d+ sample votes(; judges' ballots (tied )?\d+ : \d+)? for plan \d+\n {4}plan \d+: \d+ subtasks: src\//,
    );
    expect(node.stdout).not.toMatch(/\[\{"|"acceptance"/);
    const trace = await maker(['status', '--dir', dir, '--trace']);
    expect(trace.stdout).not.toMatch(/"acceptance"/);
    const described = [...trace.stdout.matchAll(/key (plan \d+) = \d+ subtasks?: /g)].map(
      (m) => m[1],
    );
    expect(described.length).toBeGreaterThan(0);
    expect(new Set(described).size).toBe(described.length);
  });

  it('shows control characters in run content escaped, never acts on them (a title cannot retitle or recolour the terminal)', async () => {
    const dir = await tempDir();
    const idea = 'a csv tool \x1b]0;pwned\x07 \x1b[31mred\rover \x9b2J';
    const run = await maker([
      'run',
      idea,
      '--dir',
      dir,
      '--worker',
      'sim',
      '--no-checks',
      '--max-depth',
      '1',
      '--hitl',
      'defer',
    ]);
    expect(run.code).toBe(4);
    const status = await maker(['status', '--dir', dir]);
    for (const out of [run.stdout, run.stderr, status.stdout, status.stderr])
      // eslint-disable-next-line no-control-regex
      expect(out).not.toMatch(/[\x00-\x08\x0b-\x1f\x7f-\x9f]/);
    expect(status.stdout).toContain(
      'a csv tool \\u001b]0;pwned\\u0007 \\u001b[31mred\\u000dover \\u009b2J',
    );
    // In JSON the title is the text as written.
    const json = JSON.parse((await maker(['status', '--dir', dir, '--json'])).stdout) as {
      idea: string;
    };
    expect(json.idea).toBe(idea);
  });
});
