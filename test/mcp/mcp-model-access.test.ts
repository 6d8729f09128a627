import { readFileSync } from 'node:fs';
import { readdir } from 'node:fs/promises';
import { describe, expect, it } from 'vitest';
import { text, useMcpClients } from '../helpers/mcp.js';
import { stubGemini } from '../helpers/stub-gemini.js';
import { useTempDirs } from '../helpers/tmp.js';

const tempDir = useTempDirs();
const connect = useMcpClients();

describe('maker_start and the model access', () => {
  it('a gemini that is not signed in (exit 41): the sign-in message, nothing created', async () => {
    const stub = await stubGemini(await tempDir(), { exit: 41 });
    const dir = await tempDir();
    const { call } = await connect(dir, { PATH: stub.bin });
    const refused = await call('maker_start', { idea: 'a todo list CLI', worker: 'gemini' });
    expect(refused.isError).toBe(true);
    expect(text(refused)).toMatch(/run `gemini` once in a terminal and choose Login with Google/);
    expect(await readdir(dir)).toEqual([]);
  });

  it('modelAccess names one that is not available: refused, naming how, nothing created', async () => {
    const dir = await tempDir();
    const { call } = await connect(dir, { GEMINI_API_KEY: 'AIza-in-the-server-0123456789' });
    const refused = await call('maker_start', {
      idea: 'a todo list CLI',
      worker: 'gemini',
      modelAccess: 'gemini-cli',
    });
    expect(refused.isError).toBe(true);
    expect(text(refused)).toMatch(
      /--model-access gemini-cli is not available: no `gemini` command on the PATH/,
    );
    expect(text(refused)).not.toContain('AIza-in-the-server');
    expect(await readdir(dir)).toEqual([]);
  });

  it('inside Gemini CLI with no `gemini` on its PATH and no key: never “install Gemini CLI”, but how to make the one it runs in findable, or set the key', async () => {
    const dir = await tempDir();
    const { call } = await connect(dir, { GEMINI_CLI: '1', PATH: '/nonexistent-bin' });
    const refused = await call('maker_start', { idea: 'a todo list CLI' });
    expect(refused.isError).toBe(true);
    expect(text(refused)).toMatch(
      /you are in Gemini CLI already, but MAKER cannot find its `gemini`/,
    );
    expect(text(refused)).toMatch(/gemini extensions config maker "Gemini API key"/);
    expect(text(refused)).not.toMatch(/install Gemini CLI/);
    expect(await readdir(dir)).toEqual([]);
  });

  it('maker_estimate names the model requests of a MAKER run and compares them with the access’s daily limit', async () => {
    const { call } = await connect(await tempDir());
    const estimated = await call('maker_estimate', {
      p: 0.9,
      steps: 200,
      target: 0.9,
      modelAccess: 'gemini-cli',
    });
    expect(text(estimated)).toMatch(
      /As a MAKER run: \d+ model requests \(planner \d+, workers \d+, judges \d+; 200 subtasks/,
    );
    expect(text(estimated)).toMatch(
      /of 1000 a day; Google sign-in .* ask the person before starting it/,
    );
    expect(estimated.structuredContent).toMatchObject({
      requests: { subtasks: 200, dailyLimit: 1000, overHalf: true },
    });
  });
});

describe('the extension’s own words on model access', () => {
  it('the Gemini API key setting says it is optional for a person signed in to Gemini CLI; GEMINI.md never says to install Gemini CLI', () => {
    const manifest = JSON.parse(readFileSync('gemini-extension.json', 'utf8')) as {
      settings: { envVar: string; description: string }[];
    };
    const key = manifest.settings.find((s) => s.envVar === 'GEMINI_API_KEY');
    expect(key?.description).toMatch(
      /^Optional\. Leave it empty when you are signed in to Gemini CLI/,
    );
    const context = readFileSync('GEMINI.md', 'utf8');
    expect(context).not.toMatch(/install Gemini CLI/i);
    expect(context).toMatch(/their own Gemini CLI sign-in/);
  });
});
