import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { useTempDirs } from '../helpers/tmp.js';
import { startCli, type CliProcess } from './cli-process.js';
import { maker } from '../helpers/cli.js';
import { http } from './http.js';
import { simRun } from './sim-run.js';

const tempDir = useTempDirs();
const children: CliProcess[] = [];
afterEach(async () => {
  for (const child of children.splice(0)) await child.interrupt();
});

describe('maker view', () => {
  it('prints its address first, serves it with the token only, and stops on Ctrl-C with 130', async () => {
    const dir = await tempDir();
    const { runId } = await simRun(dir);
    const view = startCli(['view', '--dir', dir]);
    children.push(view);
    const url = new URL(await view.waitFor('stdout', /^(http:\S+)\n/));
    expect(view.stdout().split('\n')[0]).toBe(url.toString());
    const port = Number(url.port);
    expect(url.hostname).toBe('127.0.0.1');
    const page = await http(port, `${url.pathname}${url.search}`);
    expect(page.status).toBe(200);
    expect(page.body).toContain('id="maker-boot"');
    expect((await http(port, '/')).status).toBe(403);
    const snapshot = await http(port, `/api/snapshot${url.search}`);
    expect(JSON.parse(snapshot.body)).toMatchObject({ run: { id: runId } });
    expect(await view.interrupt()).toBe(130);
  });

  it('refuses an unknown run, and --hitl view without --view', async () => {
    const dir = await tempDir();
    await simRun(dir);
    const unknown = await maker(['view', '--dir', dir, '--run', 'r-nope']);
    expect(unknown.code).toBe(2);
    expect(unknown.stderr).toMatch(/No run "r-nope".*Runs: r/);
    const hitl = await maker(['run', 'x', '--dir', await tempDir(), '--hitl', 'view']);
    expect(hitl.code).toBe(2);
    expect(hitl.stderr).toMatch(/--hitl view answers questions on the live view: add --view/);
  });
});

describe('maker report', () => {
  it('prints the tree as Mermaid and writes one self-contained HTML file', async () => {
    const dir = await tempDir();
    const { run } = await simRun(dir);
    const mermaid = await maker(['report', '--dir', dir, '--mermaid']);
    expect(mermaid.code).toBe(0);
    // A simulated run says so on its root.
    expect(mermaid.stdout).toMatch(
      /^flowchart TD\n {2}n0\["SIMULATED #183; a todo app<br\/>waiting/,
    );

    const file = join(dir, 'out.html');
    const written = await maker(['report', '--dir', dir, '--html', file]);
    expect(written.code).toBe(0);
    expect(written.stderr).toMatch(/wrote .*out\.html \(run r/);
    const html = await readFile(file, 'utf8');
    // Code and data inline, a policy that allows no request, nothing fetched from elsewhere.
    expect(html).toMatch(/<meta http-equiv="Content-Security-Policy" content="default-src 'none';/);
    expect(html).not.toMatch(/<script[^>]+src=|<link[^>]|<img[^>]/);
    const boot = /<script type="application\/json" id="maker-boot">(.*?)<\/script>/s.exec(
      html,
    )?.[1];
    const report = (JSON.parse(boot ?? '{}') as { report: { details: Record<string, unknown> } })
      .report;
    expect(Object.keys(report.details).sort()).toEqual(Object.keys(run.nodes).sort());

    const none = await maker(['report', '--dir', dir]);
    expect(none.code).toBe(2);
    expect(none.stderr).toMatch(/needs --html <file> or --mermaid/);
  });
});
