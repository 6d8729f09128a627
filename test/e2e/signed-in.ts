import { execFileSync } from 'node:child_process';
import { existsSync, readdirSync, statSync } from 'node:fs';
import { mkdir, readFile, symlink, writeFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { stateFileSchema } from '../../src/core/tree/schema.js';
import type { FakeCodeAssist } from '../../src/offline/fake-code-assist.js';
import type { FakeGeminiReply, FakeGeminiRequest } from '../../src/offline/fake-gemini-shapes.js';
import { projectModel } from '../helpers/project-model.js';

/**
 * A person signed in to Gemini CLI, for the end-to-end tests with the real `gemini`: their home
 * holds a Gemini CLI set-up of their own (a `GEMINI.md` and hooks, canaries that must never touch
 * MAKER's calls) and signs in to the fake Code Assist (`GOOGLE_GENAI_USE_GCA` with a token, so no
 * Google address is needed; every other one is refused at the fake's proxy).
 */

/** Text of the person's `GEMINI.md`: no request of MAKER's may carry it. */
export const CONTEXT_CANARY = 'CANARY-PERSONS-OWN-CONTEXT-5e1f';

export interface Person {
  readonly home: string;
  /** Files a hook of theirs creates when it runs (it must not, for MAKER's calls). */
  readonly hookMarks: string;
}

/**
 * The person's home: `.gemini/settings.json` choosing `auth` (Login with Google by default), a
 * `GEMINI.md`, and hooks on every event MAKER's calls could fire.
 */
export async function person(home: string, auth = 'oauth-personal'): Promise<Person> {
  const hookMarks = join(home, 'hook-marks');
  await mkdir(join(home, '.gemini'), { recursive: true });
  const hook = (event: string) => ({
    hooks: [
      {
        name: `canary-${event}`,
        type: 'command',
        command: `mkdir -p ${hookMarks} && touch ${hookMarks}/${event}`,
      },
    ],
  });
  await writeFile(
    join(home, '.gemini', 'settings.json'),
    JSON.stringify({
      security: { auth: { selectedType: auth } },
      privacy: { usageStatisticsEnabled: false },
      general: { enableAutoUpdate: false, enableAutoUpdateNotification: false },
      hooks: Object.fromEntries(
        ['SessionStart', 'BeforeAgent', 'BeforeModel', 'AfterModel', 'SessionEnd'].map((e) => [
          e,
          [hook(e)],
        ]),
      ),
    }),
  );
  await writeFile(join(home, '.gemini', 'GEMINI.md'), `# My rules\n${CONTEXT_CANARY}\n`);
  return { home, hookMarks };
}

/** Every file under `dir` (paths relative to it). */
export function filesUnder(dir: string): string[] {
  const out: string[] = [];
  const walk = (d: string) => {
    for (const name of readdirSync(d)) {
      const path = join(d, name);
      if (statSync(path).isDirectory()) walk(path);
      else out.push(path.slice(dir.length + 1));
    }
  };
  if (existsSync(dir)) walk(dir);
  return out.sort();
}

/** A bin directory with git and node, for a PATH that holds them and the real gemini alone. */
export async function toolsBin(dir: string): Promise<string> {
  const bin = join(dir, 'bin');
  await mkdir(bin, { recursive: true });
  const git = execFileSync('sh', ['-c', 'command -v git'], { encoding: 'utf8' }).trim();
  await symlink(git, join(bin, 'git'));
  await symlink(process.execPath, join(bin, 'node'));
  return bin;
}

/** maker's environment: the person's home, the real gemini, sign-in through the fake Code Assist. */
export function signedInEnv(options: {
  gemini: string;
  tools: string;
  person: Person;
  fake: FakeCodeAssist;
  tmp: string;
  waits?: Record<string, string>;
}): Record<string, string> {
  return {
    PATH: [dirname(options.gemini), options.tools].join(':'),
    HOME: options.person.home,
    TMPDIR: options.tmp,
    GOOGLE_GENAI_USE_GCA: 'true',
    GOOGLE_CLOUD_ACCESS_TOKEN: 'ya29.fake-token-of-the-test',
    CODE_ASSIST_ENDPOINT: options.fake.baseUrl,
    HTTPS_PROXY: options.fake.proxyUrl,
    ...options.waits,
  };
}

/** The project model for Code Assist: MAKER's prompts, and Gemini CLI's own checks answered. */
export function answer(request: FakeGeminiRequest, index: number): FakeGeminiReply {
  if (request.method === 'generateContent')
    return { text: JSON.stringify({ next_speaker: 'user', reasoning: 'done' }) };
  const reply = projectModel(request, index);
  // Gemini thinks before it answers: its thinking is billed (and must be counted).
  return 'text' in reply ? { ...reply, thoughtTokens: 25 } : reply;
}

export async function stateOf(dir: string) {
  return stateFileSchema.parse(JSON.parse(await readFile(join(dir, 'maker-state.json'), 'utf8')));
}
