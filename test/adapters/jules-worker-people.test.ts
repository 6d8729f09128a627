import { execFileSync } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { JulesClient } from '../../src/adapters/jules/client.js';
import { JulesWorker } from '../../src/adapters/jules/worker.js';
import { PATCH, useJulesWorkers, workerOn } from '../helpers/jules-worker.js';
import { julesSourceOf } from '../../src/app/workers/jules-settings.js';

const { held, setup } = useJulesWorkers();

describe('Jules sources', () => {
  function unconnected(source: string, gitDir?: string) {
    return new JulesWorker({
      client: new JulesClient({
        apiKey: 'jules-worker-key-0123456789',
        baseUrl: held.fake?.baseUrl ?? '',
        sleep: () => Promise.resolve(),
      }),
      source: () => Promise.resolve(source),
      publisher: {
        publish: (branch, commit) => {
          if (gitDir !== undefined)
            execFileSync('git', ['--git-dir', gitDir, 'branch', '-f', branch, commit]);
          return Promise.resolve();
        },
      },
      sleep: () => Promise.resolve(),
    });
  }

  it('without a way to ask, stops with how to connect a repository Jules cannot see', async () => {
    const { task } = await setup();
    await expect(unconnected('sources/github/me/unconnected').run(task, 0)).rejects.toThrow(
      /Jules cannot see me\/unconnected \(sources\/github\/me\/unconnected\)\. Connect it: open https:\/\/jules\.google\.com.*maker resume/,
    );
  });

  it('asks the person to connect it, checks again on each answer, and goes on once it appears', async () => {
    const { task, fake: server, gitDir } = await setup();
    const worker = unconnected('sources/github/me/later', gitDir);
    const asked: { id: string; scope: string | undefined; prompt: string }[] = [];
    const out = await worker.run(task, 0, undefined, {
      choose: (choice) => {
        asked.push({ id: choice.id, scope: choice.scope, prompt: choice.prompt });
        // The person connects the repository only while the second question is open.
        if (asked.length === 2) server.addSource({ owner: 'me', repo: 'later', gitDir });
        return Promise.resolve('connected');
      },
    });
    expect(asked.map((q) => [q.id, q.scope])).toEqual([
      ['source-0', 'run'],
      ['source-1', 'run'],
    ]);
    expect(asked[0]?.prompt).toMatch(/Jules cannot see me\/later.*https:\/\/jules\.google\.com/);
    expect(out.ok).toBe(true);
    expect([...server.sessions.values()].map((s) => s.title)).toEqual(['maker r1 n-0-1 cand-0']);
  });

  it('stops the run when the person chooses to', async () => {
    const { task } = await setup();
    const worker = unconnected('sources/github/me/never');
    await expect(
      worker.run(task, 0, undefined, { choose: () => Promise.resolve('stop') }),
    ).rejects.toThrow(/Jules cannot see me\/never.*maker resume/);
  });

  it('derives the source from a GitHub remote', () => {
    expect(julesSourceOf('https://github.com/me/app.git')).toBe('sources/github/me/app');
    expect(julesSourceOf('git@github.com:me/app.git')).toBe('sources/github/me/app');
    expect(julesSourceOf('https://github.com/me/app')).toBe('sources/github/me/app');
    expect(() => julesSourceOf('/srv/git/app.git')).toThrow(/not a GitHub URL.*JULES_SOURCE/);
  });
});

describe('a Jules agent that asks', () => {
  it('relays the question to the person and sends their answer back with :sendMessage', async () => {
    const {
      worker,
      task,
      fake: server,
    } = await setup((context) =>
      context.messages.length === 0
        ? { askFeedback: 'Upper or lower case?' }
        : {
            patch: `diff --git a/a.txt b/a.txt\nnew file mode 100644\n--- /dev/null\n+++ b/a.txt\n@@ -0,0 +1 @@\n+${context.messages[0] ?? ''}\n`,
          },
    );
    const asked: string[] = [];
    const out = await worker.run(task, 0, undefined, {
      ask: (q) => (asked.push(q), Promise.resolve('lower')),
    });
    expect(asked).toEqual(['Upper or lower case?']);
    expect(out.ok && out.patch).toContain('+lower');
    expect(
      server.requests.some((r) => r.method === 'POST' && r.path.endsWith(':sendMessage')),
    ).toBe(true);
  });
});

describe('plan review', () => {
  async function reviewing(answer: string) {
    const { task, fake: server, gitDir } = await setup();
    const choices: { id: string; kind: string; detail: string | undefined }[] = [];
    const worker = workerOn(server, gitDir, { planReview: true });
    const out = await worker.run(task, 2, undefined, {
      choose: (choice) => {
        choices.push({ id: choice.id, kind: choice.kind, detail: choice.detail });
        return Promise.resolve(answer);
      },
    });
    return { out, choices, server };
  }

  it('asks to approve the plan (requirePlanApproval), then approves it and takes the patch', async () => {
    const { out, choices, server } = await reviewing('approve');
    expect(choices.map((c) => [c.id, c.kind])).toEqual([['plan', 'veto']]);
    expect(choices[0]?.detail).toMatch(/^1\. maker r1 n-0-1 cand-2 — Overall project: idea/);
    expect(out).toMatchObject({ ok: true, patch: PATCH });
    expect(server.requests.filter((r) => r.path.endsWith(':approvePlan'))).toHaveLength(1);
  });

  it('a vetoed plan is a red-flagged candidate, and the plan is never approved', async () => {
    const { out, server } = await reviewing('veto');
    expect(out.ok).toBe(false);
    expect(!out.ok && out.reason).toMatch(/vetoed the plan of Jules session \d+/);
    expect(server.requests.some((r) => r.path.endsWith(':approvePlan'))).toBe(false);
  });
});
