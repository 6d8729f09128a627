import { execFileSync } from 'node:child_process';
import { mkdir, readFile, stat, symlink, utimes, writeFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { stateFileSchema } from '../../src/core/tree/schema.js';
import {
  startFakeGemini,
  type FakeGemini,
  type FakeGeminiRequest,
} from '../../src/offline/fake-gemini.js';
import { maker } from '../helpers/cli.js';
import { projectModel } from '../helpers/project-model.js';
import { useTempDirs } from '../helpers/tmp.js';
import { geminiBinary } from './gemini-binary.js';
import { promptRole } from '../helpers/prompts.js';

/**
 * MAKER's model calls made by the real `gemini` binary (npm @google/gemini-cli, installed into a
 * cache, never into the project's dependencies), as for a person signed in to Gemini CLI with no
 * key of MAKER's own: the binary's own auth here is a fake API key in its environment, and its model
 * the local fake Gemini (GOOGLE_GEMINI_BASE_URL).
 */
const GEMINI_CLI_VERSION = '0.61.0';
const CACHE = join(
  process.cwd(),
  'node_modules',
  '.cache',
  'maker-e2e',
  `gemini-cli-${GEMINI_CLI_VERSION}`,
);
const binary = await geminiBinary({ cache: CACHE, version: GEMINI_CLI_VERSION });
if ('skip' in binary) process.stderr.write(`\ne2e: ${binary.skip}\n\n`);

const tempDir = useTempDirs();
let fake: FakeGemini | undefined;
afterEach(async () => {
  await fake?.close();
  fake = undefined;
});

/** PATH: the real gemini, node (its shebang) and git; nothing else of this machine. */
async function path(gemini: string): Promise<string> {
  const bin = join(await tempDir(), 'bin');
  await mkdir(bin);
  const git = execFileSync('sh', ['-c', 'command -v git'], { encoding: 'utf8' }).trim();
  await symlink(git, join(bin, 'git'));
  await symlink(process.execPath, join(bin, 'node'));
  return [dirname(gemini), bin].join(':');
}

describe.skipIf('skip' in binary)(
  'MAKER on the person’s own Gemini CLI (real gemini binary)',
  () => {
    it('maker run --worker gemini --model-access gemini-cli completes: plain calls with MAKER’s prompts, no tools, one per MAKER call', async () => {
      const utility: FakeGeminiRequest[] = [];
      fake = await startFakeGemini((request, index) => {
        if (request.method === 'generateContent') {
          utility.push(request);
          return { text: JSON.stringify({ next_speaker: 'user', reasoning: 'done' }) };
        }
        return projectModel(request, index);
      });
      const geminiHome = await tempDir();
      await mkdir(join(geminiHome, '.gemini'));
      await writeFile(
        join(geminiHome, '.gemini', 'settings.json'),
        JSON.stringify({
          security: { auth: { selectedType: 'gemini-api-key' } },
          privacy: { usageStatisticsEnabled: false },
          general: { enableAutoUpdate: false, enableAutoUpdateNotification: false },
        }),
      );
      // The person's HOME, with Gemini CLI's OAuth file as a canary MAKER must never open.
      const home = await tempDir();
      await mkdir(join(home, '.gemini'));
      const canary = join(home, '.gemini', 'oauth_creds.json');
      await writeFile(canary, '{"access_token":"ya29.canary"}');
      const longAgo = new Date('2001-01-01T00:00:00Z');
      await utimes(canary, longAgo, new Date());
      const key = 'fake-key-for-the-binary-0123456789';
      const dir = join(await tempDir(), 'repo');
      const result = await maker(
        [
          'run',
          'a CLI that converts CSV to JSON',
          '--dir',
          dir,
          '--worker',
          'gemini',
          '--model-access',
          'gemini-cli',
          '--hitl',
          'auto',
          // Its PATH holds git, node and gemini alone (no sandbox): this test is about model access.
          '--no-checks',
          '--json',
        ],
        {
          PATH: await path('path' in binary ? binary.path : ''),
          HOME: home,
          GEMINI_CLI_HOME: geminiHome,
          GEMINI_API_KEY: key,
          GOOGLE_GEMINI_BASE_URL: fake.baseUrl,
        },
      );
      expect(result.stderr).toBe('');
      expect(result.code).toBe(0);
      const summary = JSON.parse(result.stdout) as { modelCalls: number; workerRuns: number };
      const state = stateFileSchema.parse(
        JSON.parse(await readFile(join(dir, 'maker-state.json'), 'utf8')),
      );
      const run = Object.values(state.runs)[0];
      expect(run?.status).toBe('done');
      expect(run?.config.modelAccess).toBe('gemini-cli');
      const turns = fake.requests.filter((r) => r.method === 'streamGenerateContent');
      // MAKER's prompts reached the model, as plain calls: no tool declared, MAKER's system prompt.
      expect(turns.some((r) => promptRole(r) === 'minimal')).toBe(true);
      expect(turns.some((r) => promptRole(r) === 'worker')).toBe(true);
      for (const r of turns) {
        expect(r.tools).toEqual([]);
        expect(r.system).toMatch(/language model inside MAKER/);
        expect(r.model).toBe('gemini-2.5-flash');
      }
      // The binary made one model turn per MAKER call, no more (and no router call).
      expect(turns.length).toBeGreaterThan(0);
      expect(turns.length).toBeLessThanOrEqual(summary.modelCalls + summary.workerRuns);
      expect(utility.filter((r) => r.model.includes('lite'))).toEqual([]);
      // No file MAKER wrote holds the key; Gemini CLI's OAuth file was never opened.
      for (const name of ['maker-state.json', 'maker-journal.jsonl', 'maker-state.json.log'])
        expect(await readFile(join(dir, name), 'utf8').catch(() => '')).not.toContain(key);
      expect((await stat(canary)).atimeMs).toBe(longAgo.getTime());
    }, 300_000);
  },
);
