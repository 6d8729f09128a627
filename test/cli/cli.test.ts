import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { main } from '../../src/surfaces/cli/main.js';
import type { CliIo } from '../../src/surfaces/cli/io.js';
import { startFakeGemini, type FakeGemini } from '../../src/offline/fake-gemini.js';
import { hanoiSolvingResponder } from '../fakes/hanoi-responder.js';
import { maker } from '../helpers/cli.js';

function captureIo(env: Record<string, string | undefined> = {}) {
  const out: string[] = [];
  const err: string[] = [];
  const io: CliIo = {
    stdout: (t) => void out.push(t),
    stderr: (t) => void err.push(t),
    stderrIsTty: false,
    stdinIsTty: false,
    cwd: process.cwd(),
    env,
  };
  return { io, stdout: () => out.join(''), stderr: () => err.join('') };
}

async function cli(args: string[], env: Record<string, string | undefined> = {}) {
  const cap = captureIo(env);
  const code = await main(args, cap.io);
  return { code, stdout: cap.stdout(), stderr: cap.stderr() };
}

let fake: FakeGemini | undefined;
afterEach(async () => {
  await fake?.close();
  fake = undefined;
});

describe('maker estimate', () => {
  it('prints the paper’s numbers as JSON', async () => {
    const { code, stdout } = await cli([
      'estimate',
      '--p',
      '0.9978',
      '--steps',
      '1048575',
      '--target',
      '0.95',
      '--v',
      '0.99',
      '--cost-per-sample',
      '0.0009',
      '--json',
    ]);
    expect(code).toBe(0);
    const result = JSON.parse(stdout) as Record<string, number>;
    expect(Object.keys(result).sort()).toEqual(
      [
        'expectedCost',
        'expectedDraws',
        'expectedDrawsPerStep',
        'kMin',
        'pFull',
        'pSub',
        // As a MAKER run: the planner's, workers' and judges' model requests.
        'requests',
      ].sort(),
    );
    expect(result['kMin']).toBe(3);
    expect(result['pFull']).toBeCloseTo(0.989, 3);
    expect(result['expectedDrawsPerStep']).toBeCloseTo(3.013 / 0.99, 3);
  });

  it('reads as text for a person', async () => {
    const { code, stdout } = await cli([
      'estimate',
      '--p',
      '0.9642',
      '--steps',
      '1048575',
      '--target',
      '0.95',
    ]);
    expect(code).toBe(0);
    expect(stdout).toMatch(/^k_min = 6$/m);
  });

  it('says when the k it evaluates falls short of the target, k = 1 included', async () => {
    for (const k of ['1', '2']) {
      const args = ['estimate', '--p', '0.99', '--steps', '1000', '--target', '0.95', '--k', k];
      const { code, stdout } = await cli(args);
      expect(code).toBe(0);
      expect(stdout).toContain(`Note: k = ${k} falls short of the target 0.95; k_min is 3.`);
    }
  });

  it('explains an impossible case instead of crashing', async () => {
    const { code, stderr } = await cli([
      'estimate',
      '--p',
      '0.4',
      '--steps',
      '100',
      '--target',
      '0.9',
    ]);
    expect(code).toBe(2);
    expect(stderr).toMatch(/No k reaches the target.*p = 0.4 ≤ 0.5/);
  });

  it.each([
    [['estimate', '--p', '0.9', '--target', '0.9'], /needs --steps/],
    [['estimate', '--p', 'abc', '--steps', '10', '--target', '0.9'], /--p must be a number/],
    [
      ['estimate', '--p', '0.9', '--steps', '10', '--target', '0.9', '--bogus'],
      /Unknown option '--bogus'\. See `maker estimate --help`/,
    ],
    [['frobnicate'], /unknown command "frobnicate"/],
    [['bench', 'chess'], /unknown command "chess"\. Run `maker bench --help` for the list/],
    [['bench', 'hanoi', '--disks', '0'], /--disks must be a whole number from 1 to 30 \(got "0"\)/],
    [['bench', 'hanoi', '--model', 'gpt-4'], /--model must be "sim" or a Gemini model name/],
    [['bench', 'hanoi', '--model', 'gemini-2.5-flash'], /needs GEMINI_API_KEY/],
  ])('rejects %j with a usage error', async (args, message) => {
    const { code, stderr } = await cli(args);
    expect(code).toBe(2);
    expect(stderr).toMatch(message);
  });
});

describe('maker bench hanoi', () => {
  it('prints the full JSON report and exits 0 when solved', async () => {
    const { code, stdout } = await cli(['bench', 'hanoi', '--disks', '10', '--json']);
    expect(code).toBe(0);
    const report = JSON.parse(stdout) as Record<string, unknown>;
    for (const field of [
      'disks',
      'steps',
      'k',
      'model',
      'p',
      'solved',
      'errors',
      'samples',
      'validSamples',
      'flagged',
      'maxDrawsPerStep',
      'undecidedAfterRound',
      'wallMs',
      'samplesPerSecond',
      'peakRssMb',
    ])
      expect(report).toHaveProperty(field);
    expect(report).toMatchObject({
      disks: 10,
      steps: 1023,
      k: 3,
      model: 'sim',
      p: 0.9978,
      solved: true,
      errors: 0,
      initialBatch: 3,
    });
    expect(report['reference']).toMatchObject({ samples: report['samples'] });
  });

  it('takes a 2k − 1 first batch, which costs more draws for the same result', async () => {
    const narrow = JSON.parse(
      (await cli(['bench', 'hanoi', '--disks', '10', '--json', '--no-reference'])).stdout,
    ) as { samples: number };
    const wide = JSON.parse(
      (
        await cli([
          'bench',
          'hanoi',
          '--disks',
          '10',
          '--initial',
          '2k-1',
          '--json',
          '--no-reference',
        ])
      ).stdout,
    ) as {
      samples: number;
      initialBatch: number;
      solved: boolean;
      validVotesVsTheory: number;
      theory: { validVotesPerStep: number; drawsPerStep: number };
    };
    expect(wide).toMatchObject({ initialBatch: 5, solved: true });
    expect(wide.samples).toBeGreaterThan(narrow.samples * 1.5);
    // The theory it is measured against is that of the schedule it ran, the wide batch's.
    expect(wide.theory.validVotesPerStep).toBeCloseTo(wide.theory.drawsPerStep * 0.995, 3);
    expect(wide.validVotesVsTheory).toBeCloseTo(1, 1);
  });

  it('exits 1 and says so when the run is not solved', async () => {
    const { code, stdout } = await cli([
      'bench',
      'hanoi',
      '--disks',
      '10',
      '--k',
      '1',
      '--p',
      '0.99',
      '--no-reference',
    ]);
    expect(code).toBe(1);
    expect(stdout).toMatch(/NOT solved: \d+ step\(s\) decided wrongly/);
  });

  it('runs the paper’s prompts through Gemini (a local fake) with --model', async () => {
    fake = await startFakeGemini(hanoiSolvingResponder);
    const { code, stdout } = await cli(
      [
        'bench',
        'hanoi',
        '--model',
        'gemini-2.5-flash',
        '--disks',
        '3',
        '--k',
        '2',
        '--thinking-budget',
        '0',
        '--json',
      ],
      {
        GEMINI_API_KEY: 'test-key',
        GOOGLE_GEMINI_BASE_URL: fake.baseUrl,
      },
    );
    expect(code).toBe(0);
    expect(JSON.parse(stdout)).toMatchObject({
      solved: true,
      errors: 0,
      model: 'gemini-2.5-flash',
      p: null,
      reference: null,
      theory: null,
    });
    expect(fake.requests).toHaveLength(14);
    expect(fake.requests[0]?.body).toMatchObject({
      generationConfig: { thinkingConfig: { thinkingBudget: 0 } },
    });
  });
});

describe('the bundled CLI', () => {
  it('runs from dist/maker.js with help that teaches', async () => {
    const { stdout } = await maker(['--help']);
    expect(stdout).toMatch(/bench hanoi/);
    const bench = await maker(['bench', 'hanoi', '--help']);
    expect(bench.stdout).toMatch(/Examples:/);
    const version = await maker(['--version']);
    expect(version.stdout.trim()).toMatch(/^\d+\.\d+\.\d+$/);
  });

  it('solves 8 disks end to end and prints JSON only on stdout', async () => {
    const { stdout } = await maker(['bench', 'hanoi', '--disks', '8', '--json']);
    expect(JSON.parse(stdout)).toMatchObject({ solved: true, errors: 0, steps: 255 });
  });

  it('reaches a fake Gemini through GOOGLE_GEMINI_BASE_URL and never prints the key', async () => {
    fake = await startFakeGemini(hanoiSolvingResponder);
    // Shaped like a real key (so redaction patterns would catch it) but built at run time.
    const key = ['AIza', 'S'.repeat(35)].join('');
    const { stdout, stderr } = await maker(
      ['bench', 'hanoi', '--model', 'gemini-2.5-flash', '--disks', '3', '--k', '2', '--json'],
      { GEMINI_API_KEY: key, GOOGLE_GEMINI_BASE_URL: fake.baseUrl },
    );
    expect(JSON.parse(stdout)).toMatchObject({
      solved: true,
      model: 'gemini-2.5-flash',
      samples: 14,
    });
    expect(fake.requests.every((r) => r.apiKey === key)).toBe(true);
    expect(stdout + stderr).not.toContain(key);
  });
});

describe('a folder with no MAKER run', () => {
  it('maker status and maker report exit 1 (nothing there), not 2 (a usage error), and say how to start', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'maker-no-runs-'));
    try {
      for (const args of [
        ['status', '--dir', dir],
        ['report', '--mermaid', '--dir', dir],
      ]) {
        const { code, stderr } = await cli(args);
        expect(code, args.join(' ')).toBe(1);
        expect(stderr).toContain(`No MAKER runs in ${dir}. Start one with: maker run "<idea>"`);
      }
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
});
