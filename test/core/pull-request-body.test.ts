import { describe, expect, it } from 'vitest';
import { pullRequestBody, pullRequestTitle } from '../../src/core/github/pull-request.js';
import { mermaidMarkdown } from '../../src/core/view/mermaid.js';
import { WORKERS } from '../../src/app/workers/index.js';
import { bigRun, node, runOf } from '../helpers/runs.js';

describe('the pull request of a run', () => {
  it('embeds the tree as the same Mermaid diagram maker report gives, then lists every node', () => {
    const run = runOf([
      node('root', { status: 'composing', kind: 'branch' }),
      node('0', { status: 'done', kind: 'leaf', title: 'Write the parser' }),
      node('1', { status: 'sampling', kind: 'leaf', title: 'Write the CLI' }),
    ]);
    const body = pullRequestBody(run);
    expect(body).toContain(mermaidMarkdown(run, { maxChars: 20_000 }));
    expect(body).toContain('```mermaid\nflowchart');
    for (const id of Object.keys(run.nodes)) expect(body).toContain(`\`${id}\``);
    expect(body).toContain('Write the parser — done');
  });

  it('links each session where its worker has a page for it, and names it otherwise', () => {
    // Proves: the links come from the run's worker (Jules' own pages), never from a guess about a
    // kind: a fake Jules' sessions, which have no page, are named without a dead link.
    const run = runOf([node('root', { status: 'done', kind: 'leaf', externalIds: ['1234/5'] })]);
    const page = (id: string) => WORKERS.jules.sessionUrl?.(id);
    expect(pullRequestBody(run, page)).toContain(
      '## Sessions\n\n- `root`: https://jules.google.com/session/1234%2F5',
    );
    const fake = (id: string) => WORKERS['jules-fake'].sessionUrl?.(id);
    expect(pullRequestBody(run, fake)).toContain('- `root`: session `1234/5`');
    expect(pullRequestBody(run, fake)).not.toContain('https://');
  });

  it('stays under GitHub’s body limit for a tree of a thousand nodes', () => {
    const body = pullRequestBody(bigRun(1000));
    expect(body.length).toBeLessThanOrEqual(65_536);
    expect(body).toContain('```mermaid');
  });

  it('says simulated in the title and body of a simulated run', () => {
    const run = runOf([node('root', { status: 'done', kind: 'leaf' })]);
    run.config = { ...run.config, worker: 'sim' };
    // Its checks were off: unverified, and the title says so too.
    expect(pullRequestTitle(run)).toMatch(/^\[SIMULATED\] \[UNVERIFIED\] MAKER: /);
    expect(pullRequestBody(run)).toMatch(/\*\*SIMULATED\*\*/);
  });

  it('says which subtasks were reopened, and why', () => {
    const run = runOf([
      node('root', { status: 'composing', kind: 'branch' }),
      node('0', { status: 'done', kind: 'leaf', title: 'Set up the package' }),
      node('1', { status: 'done', kind: 'leaf', title: 'Split text into words' }),
    ]);
    expect(pullRequestBody(run)).not.toContain('## Reopened');
    run.reopens = [
      {
        node: '0',
        trigger: { node: '1', kind: 'candidates', title: 'Split text into words' },
        failures: 8,
        signature: "SyntaxError: Unexpected token 'export'",
        at: '2026-01-01T00:00:00.000Z',
      },
    ];
    expect(pullRequestBody(run)).toContain(
      '## Reopened\n\n- reopened 0 (Set up the package) because all 8 candidates of 1 (Split text into words) failed their check:',
    );
  });
});
