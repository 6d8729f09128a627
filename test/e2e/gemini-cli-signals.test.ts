import { spawn } from 'node:child_process';
import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { startFakeCodeAssist, type FakeCodeAssist } from '../../src/offline/fake-code-assist.js';
import { CLI } from '../helpers/cli.js';
import { processesNaming, until } from '../helpers/processes.js';
import { useTempDirs } from '../helpers/tmp.js';
import { geminiBinary } from './gemini-binary.js';
import { answer, person, signedInEnv, toolsBin } from './signed-in.js';

/**
 * `maker run --model-access gemini-cli` ended by SIGTERM while the real `gemini` (npm
 * @google/gemini-cli, installed into a cache) is mid-call against the fake Code Assist: no process
 * of it is left, and nothing of it under its temporary directory (the real binary writes there of
 * its own, which the stub of `test/cli/gemini-cli-orphans.test.ts` does not; that test covers
 * SIGINT and SIGKILL too, in seconds).
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
const GEMINI = 'path' in binary ? binary.path : '';

const tempDir = useTempDirs();
let fake: FakeCodeAssist | undefined;
afterEach(async () => {
  await fake?.close();
  fake = undefined;
});

describe.skipIf('skip' in binary || process.platform !== 'linux')(
  'maker ended mid-call, with the real gemini',
  { timeout: 120_000 },
  () => {
    it.each(['SIGTERM'] as const)(
      'after %s: 0 processes of its gemini left, its temporary directory empty',
      async (signal) => {
        let inFlight = false;
        // The first model call never answers: maker is stopped while it waits on it.
        fake = await startFakeCodeAssist((request, index) => {
          if (request.method === 'streamGenerateContent') {
            inFlight = true;
            return { hang: true };
          }
          return answer(request, index);
        });
        const tmp = await tempDir();
        const env = signedInEnv({
          gemini: GEMINI,
          tools: await toolsBin(await tempDir()),
          person: await person(await tempDir()),
          fake,
          tmp,
          waits: { MAKER_MODEL_SILENCE_S: '600' },
        });
        const child = spawn(
          process.execPath,
          [
            CLI,
            'run',
            'a CLI that converts CSV to JSON',
            '--dir',
            join(await tempDir(), 'repo'),
            '--worker',
            'gemini',
            '--model-access',
            'gemini-cli',
            '--hitl',
            'auto',
            '--no-checks',
          ],
          { stdio: ['ignore', 'ignore', 'pipe'], env },
        );
        let err = '';
        child.stderr.on('data', (chunk: Buffer) => (err += chunk.toString()));
        const exited = new Promise<number | null>((resolve) =>
          child.on('exit', (code) => resolve(code)),
        );
        expect(await until(() => inFlight, 90_000), err).toBe(true);
        expect(processesNaming(tmp).length).toBeGreaterThan(0);
        child.kill(signal);
        await exited;
        expect(
          await until(() => processesNaming(tmp).length === 0, 3000),
          `left: ${processesNaming(tmp).join(', ')}`,
        ).toBe(true);
        expect(
          await until(() => readdirSync(tmp).length === 0, 6000),
          `left in ${tmp}: ${readdirSync(tmp).join(', ')}`,
        ).toBe(true);
      },
    );
  },
);
