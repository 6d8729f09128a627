import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { maker } from '../helpers/cli.js';
import { useTempDirs } from '../helpers/tmp.js';

/** Smaller points a newcomer tripped over (issue 39, point 10): what maker says, in words. */
const tempDir = useTempDirs();
const SMALL = ['--worker', 'sim', '--max-depth', '1', '--no-checks', '--confidence', 'low'];

/** A help page's exit statuses, by code. */
function exits(page: string): Map<number, string> {
  const table = page.slice(page.indexOf('Exit status:'));
  return new Map(
    [...table.matchAll(/^ {2}(\d+) +(.*)$/gm)].map((m) => [Number(m[1]), m[2] as string]),
  );
}

describe('help pages', () => {
  it('agree on exit statuses: maker --help has every one of a run, in its words; bench only its own', async () => {
    const run = exits((await maker(['run', '--help'])).stdout);
    const top = exits((await maker(['--help'])).stdout);
    const bench = exits((await maker(['bench', '--help'])).stdout);
    for (const [code, meaning] of run) {
      expect(top.has(code), `maker --help lacks ${code}`).toBe(true);
      if (code >= 4) expect(top.get(code)).toContain(meaning);
    }
    expect([...bench.keys()]).toEqual([0, 1, 2, 130]);
  });

  it('describes maker help itself', async () => {
    const page = (await maker(['help', '--help'])).stdout;
    expect(page).toMatch(/^Usage: maker help .*\n\n\S.*the same page as `maker <command> --help`/);
  });
});

describe('what a run and its status say', () => {
  it('says how questions are answered, the worker runs apart from model calls, and the tally apart from the title', async () => {
    const dir = join(await tempDir(), 'repo');
    const run = await maker(['run', 'a todo app', '--dir', dir, ...SMALL, '--hitl', 'defer']);
    expect(run.code, run.stderr).toBe(4);
    const status = (await maker(['status', '--dir', dir])).stdout;
    expect(status).toContain('questions saved for maker answer (--hitl defer)');
    expect(status).not.toMatch(/hitl defer;/);
    expect(status).toMatch(/worker runs \d+ \(\d+ tokens; no model call of their own\)/);
    expect(status).not.toMatch(/worker 0 \(/);
    // "Project scaffold 1 : 0" read as one title: a dot sets the tally apart.
    expect(status).toMatch(/^├─ 0 \[done, leaf\] .*[^\d] · \d+ : \d+ sample votes/m);
  });

  it('says that files already in a folder --init makes a repository stay untracked', async () => {
    const dir = await tempDir();
    await writeFile(join(dir, 'notes.txt'), 'mine\n');
    const run = await maker([
      'run',
      'a todo app',
      '--dir',
      dir,
      '--init',
      ...SMALL,
      '--hitl',
      'auto',
    ]);
    expect(run.code, run.stderr).toBe(0);
    expect(run.stderr).toMatch(/The 1 file and folder already there stay untracked/);
    expect((await maker(['run', '--help'])).stdout).toMatch(/--init +make --dir .*untracked/s);
  });

  it('says a start stopped by Ctrl-C was interrupted, not killed', async () => {
    const dir = join(await tempDir(), 'repo');
    const stopped = await maker(['run', 'a todo app', '--dir', dir, ...SMALL, '--hitl', 'auto'], {
      MAKER_INTERRUPT_AT: 'start:intent-saved',
    });
    expect(stopped.code, stopped.stderr).toBe(130);
    const resumed = await maker(['resume', '--dir', dir]);
    expect(resumed.stderr).toMatch(/which was interrupted \(Ctrl-C or a kill\) before the run/);
    expect(resumed.stderr).not.toMatch(/which a kill interrupted/);
  });
});

describe('maker estimate', () => {
  it('says how many times over a daily limit a run goes, not "more than half"', async () => {
    const args = ['estimate', '--p', '0.99', '--steps', '1000', '--target', '0.9'];
    const out = (await maker([...args, '--model-access', 'gemini-cli'])).stdout;
    expect(out).toMatch(
      /daily limit .*: 11 times it: more than a day's requests \(12 days' worth\)/,
    );
    expect(out).not.toMatch(/more than half/);
  });
});
