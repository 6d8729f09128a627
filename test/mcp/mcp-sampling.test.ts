import { existsSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { samplingFor } from '../../src/core/sampling.js';
import {
  startFakeGemini,
  type FakeGemini,
  type FakeGeminiRequest,
} from '../../src/offline/fake-gemini.js';
import { text, useMcpClients } from '../helpers/mcp.js';
import { projectModel } from '../helpers/project-model.js';
import { useTempDirs } from '../helpers/tmp.js';

const tempDir = useTempDirs();
const connect = useMcpClients();
let fake: FakeGemini | undefined;
afterEach(async () => {
  await fake?.close();
  fake = undefined;
});

const budgetOf = (r: FakeGeminiRequest) =>
  (r.body as { generationConfig?: { thinkingConfig?: { thinkingBudget?: number } } })
    .generationConfig?.thinkingConfig?.thinkingBudget;

/** The fake Gemini (the scripted project model) and a promise of the first request it gets. */
async function gemini(): Promise<{
  first: Promise<FakeGeminiRequest>;
  env: Record<string, string>;
}> {
  let seen: (r: FakeGeminiRequest) => void = () => undefined;
  const first = new Promise<FakeGeminiRequest>((resolve) => (seen = resolve));
  fake = await startFakeGemini((request, index) => {
    seen(request);
    return projectModel(request, index);
  });
  // PATH: the server finds its sandbox there, as the extension's server does (checks on).
  const env = {
    GEMINI_API_KEY: 'fake-key-1234',
    GOOGLE_GEMINI_BASE_URL: fake.baseUrl,
    PATH: process.env['PATH'] ?? '',
  };
  return { first, env };
}

describe('maker_start sampling overrides', () => {
  it('sends the temperature and thinking budget asked for, and records them in the state', async () => {
    const { first, env } = await gemini();
    const dir = await tempDir();
    const { call } = await connect(dir, env);
    const started = await call('maker_start', {
      idea: 'a CLI that converts CSV to JSON',
      temperature: 0.3,
      thinkingBudget: 2048,
    });
    expect(started.isError, text(started)).toBeFalsy();
    const runId = (started.structuredContent as { runId: string }).runId;
    const request = await first;
    expect(request.temperature).toBe(0.3);
    expect(budgetOf(request)).toBe(2048);
    const state = JSON.parse(await readFile(join(dir, 'maker-state.json'), 'utf8')) as {
      runs: Record<
        string,
        {
          config: {
            sampling?: {
              overrides: Record<string, unknown>;
              roles: Record<string, { temperature: number; thinkingBudget?: number }>;
            };
          };
        }
      >;
    };
    const sampling = state.runs[runId]?.config.sampling;
    expect(sampling?.overrides).toEqual({ temperature: 0.3, thinkingBudget: 2048 });
    expect(sampling?.roles['worker']).toMatchObject({ temperature: 0.3, thinkingBudget: 2048 });
    await call('maker_cancel', { runId });
  });

  it('without overrides, samples as the model table says', async () => {
    const { first, env } = await gemini();
    const { call } = await connect(await tempDir(), env);
    const started = await call('maker_start', { idea: 'a CLI that converts CSV to JSON' });
    const request = await first;
    // The root's split (checks on, no overall check: a root is split without a minimality vote).
    const table = samplingFor('gemini-2.5-flash', 'split');
    expect(request.temperature).toBe(table.temperature);
    expect(budgetOf(request)).toBe(table.thinkingBudget);
    await call('maker_cancel', { runId: (started.structuredContent as { runId: string }).runId });
  });

  it.each<[string, Record<string, unknown>, RegExp]>([
    ['a temperature out of range', { temperature: 3 }, /temperature/],
    ['a budget past the schema', { thinkingBudget: 40_000 }, /thinkingBudget/],
    ['an unknown level', { thinkingLevel: 'huge' }, /thinkingLevel/],
    [
      'a level for a Gemini 2.5 model',
      { thinkingLevel: 'high' },
      /gemini-2\.5-flash takes no thinking level: give thinkingBudget instead\. Nothing was created\./,
    ],
    [
      "a budget outside the model's range",
      { thinkingBudget: 30_000 },
      /gemini-2\.5-flash takes a thinking budget from 1 to 24576 tokens \(or 0, no thinking\) \(got 30000\)/,
    ],
    [
      'a temperature for the simulated worker',
      { worker: 'sim', temperature: 0.5 },
      /The sim worker samples no model: temperature, thinkingBudget and thinkingLevel apply to Gemini runs only/,
    ],
  ])('refuses %s with a clear error before anything starts', async (_what, args, said) => {
    const { env } = await gemini();
    const dir = await tempDir();
    const { call } = await connect(dir, env);
    const refused = await call('maker_start', { idea: 'a csv tool', ...args });
    expect(refused.isError).toBe(true);
    expect(text(refused)).toMatch(said);
    expect(fake?.requests).toHaveLength(0);
    expect(existsSync(join(dir, 'maker-state.json'))).toBe(false);
    expect(existsSync(join(dir, '.git'))).toBe(false);
  });
});
