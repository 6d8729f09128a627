import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { maker } from '../helpers/cli.js';
import { text, useMcpClients } from '../helpers/mcp.js';
import { useTempDirs } from '../helpers/tmp.js';
import { readdir } from 'node:fs/promises';

const tempDir = useTempDirs();
const connect = useMcpClients();

describe('quota before cost', () => {
  it('maker estimate names the requests a MAKER run would make and compares them with the access’s daily limit', async () => {
    const { code, stdout } = await maker([
      'estimate',
      '--p',
      '0.9',
      '--steps',
      '30',
      '--target',
      '0.9',
      '--model-access',
      'key',
    ]);
    expect(code).toBe(0);
    expect(stdout).toMatch(
      /^model requests +\d+ as a MAKER run \(planner \d+, workers \d+, judges \d+\)$/m,
    );
    // 30 steps at p = 0.9 need more than the free key's 250 requests: the estimate says by how much.
    expect(stdout).toMatch(
      /^daily limit +250 \(a free Gemini API key.*\): [\d.]+ times it: more than a day's requests \(\d+ days' worth\)$/m,
    );
    const gemini = await maker([
      'estimate',
      '--p',
      '0.9',
      '--steps',
      '30',
      '--target',
      '0.9',
      '--model-access',
      'gemini-cli',
    ]);
    expect(gemini.stdout).toMatch(
      /^daily limit +1,000 \(Google sign-in.*\): more than half of it, a run would ask first$/m,
    );
    const json = await maker([
      'estimate',
      '--p',
      '0.99',
      '--steps',
      '4',
      '--target',
      '0.9',
      '--json',
    ]);
    expect(JSON.parse(json.stdout)).toMatchObject({
      requests: { subtasks: 4, total: expect.any(Number) as unknown, dailyLimit: null },
    });
  });

  it('a run over half the declared daily limit is refused without a terminal, naming --confirm-quota; nothing is created', async () => {
    const dir = join(await tempDir(), 'repo');
    const refused = await maker([
      'run',
      'a todo list CLI',
      '--dir',
      dir,
      '--worker',
      'sim',
      '--no-checks',
      '--hitl',
      'auto',
      '--daily-limit',
      '100',
    ]);
    expect(refused.code).toBe(2);
    expect(refused.stderr).toMatch(
      /this run may make up to \d+ model requests \(planner \d+, workers \d+, judges \d+/,
    );
    expect(refused.stderr).toMatch(/pass --confirm-quota to start anyway/);
    expect(existsSync(dir)).toBe(false);
    const confirmed = await maker(
      [
        'run',
        'a todo list CLI',
        '--dir',
        dir,
        '--worker',
        'sim',
        '--no-checks',
        '--hitl',
        'auto',
        '--confirm-quota',
      ],
      { MAKER_DAILY_REQUESTS: '100' },
    );
    expect(confirmed.stderr).toMatch(/the declared daily limit is 100 requests/);
    expect(confirmed.code).toBe(0);
  });

  it('maker_start over half the declared limit asks the person first (confirmQuota), and says the expected requests when it starts', async () => {
    const dir = await tempDir();
    const { call } = await connect(dir);
    const asked = await call('maker_start', {
      idea: 'a todo list CLI',
      worker: 'sim',
      runChecks: false,
      dailyLimit: 100,
    });
    expect(asked.isError).toBe(true);
    expect(text(asked)).toMatch(/more than half of a day's requests: ask the person/);
    expect(text(asked)).toMatch(/confirmQuota: true/);
    expect(await readdir(dir)).toEqual([]);
    const started = await call('maker_start', {
      idea: 'a todo list CLI',
      worker: 'sim',
      runChecks: false,
      dailyLimit: 100,
      confirmQuota: true,
    });
    expect(started.isError).toBeFalsy();
    expect(text(started)).toMatch(/This run may make up to \d+ model requests/);
  });
});
