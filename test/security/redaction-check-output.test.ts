import { execFileSync } from 'node:child_process';
import { generateKeyPairSync, randomBytes } from 'node:crypto';
import { readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { GeminiModel } from '../../src/adapters/gemini/gemini-model.js';
import { inspectRepository } from '../../src/adapters/git/inspect.js';
import { LlmPlanner } from '../../src/engine/models/llm-planner.js';
import { LlmWorker } from '../../src/engine/models/llm-worker.js';
import type { MakerEngine } from '../../src/engine/maker-engine.js';
import { planGitHub } from '../../src/app/github/plan.js';
import { setUpGitHub } from '../../src/app/github/setup.js';
import { remotesFor } from '../../src/app/github/wiring.js';
import type { Target } from '../../src/app/start/preflight.js';
import { secretsOf } from '../../src/app/env.js';
import { engineFor, openWorkspace } from '../../src/app/wiring/wiring.js';
import { geminiConfig, useFakeGemini } from '../helpers/gemini-engine.js';
import { TOKENS, useFakeGitHub } from '../helpers/github.js';
import { scriptedModel } from '../helpers/security-model.js';
import { useTempDirs } from '../helpers/tmp.js';
import { readSettings } from '../../src/app/settings.js';
import { workspaceSettings } from '../helpers/settings.js';

/**
 * A hostile model's check prints credentials: a GitHub token, an AWS key id, a private key and the
 * value of a secret environment variable of the person's (also Base64-encoded). The run goes
 * through MAKER's own wiring (`engineFor`, the environment it runs with), a scripted model behind
 * the fake Gemini and the fake GitHub, with checks in the sandbox. None of them may reach the
 * state, the journal, a prompt, a commit or GitHub; the redacted output does reach them (so the
 * test sees the paths it guards).
 */
const tempDir = useTempDirs();
const startGemini = useFakeGemini();
const startGitHub = useFakeGitHub();

const alnum = (n: number) =>
  randomBytes(n * 2)
    .toString('base64')
    .replace(/[^A-Za-z0-9]/g, '')
    .slice(0, n);
const GH_TOKEN = `ghp_${alnum(36)}`;
const KEY_ID = `AKIA${alnum(40)
  .toUpperCase()
  .replace(/[^A-Z0-9]/g, '')
  .slice(0, 16)}`;
const PEM = generateKeyPairSync('ec', { namedCurve: 'P-256' })
  .privateKey.export({ type: 'pkcs8', format: 'pem' })
  .toString();
const DEPLOY_TOKEN = `dt-${alnum(20)}`;
const DEPLOY_BASE64 = Buffer.from(`token=${DEPLOY_TOKEN}`).toString('base64');

/** What must appear nowhere: each credential, each line of the key, the encoded value. */
const SECRETS = [
  GH_TOKEN,
  KEY_ID,
  DEPLOY_TOKEN,
  DEPLOY_BASE64,
  'PRIVATE KEY-----',
  ...PEM.split('\n').filter((line) => line.length >= 16 && !line.startsWith('-----')),
];

/** ROT13: the check's script holds the credentials only in this form, and `tr` prints them. */
const rot13 = (s: string) =>
  s.replace(/[A-Za-z]/g, (c) => {
    const base = c <= 'Z' ? 65 : 97;
    return String.fromCharCode(((c.charCodeAt(0) - base + 13) % 26) + base);
  });
const PRINTED = [
  `token ${GH_TOKEN}`,
  `key id ${KEY_ID}`,
  ...PEM.trim().split('\n'),
  `deploy ${DEPLOY_TOKEN}`,
  `encoded ${DEPLOY_BASE64}`,
];
const SCRIPT = `printf '%s\\n' ${PRINTED.map((l) => `'${rot13(l)}'`).join(' ')} | tr 'A-Za-z' 'N-ZA-Mn-za-m'\n`;

function leaks(text: string): string[] {
  return SECRETS.filter((s) => text.includes(s));
}

describe('check output on its way into MAKER', () => {
  it('loses every credential before the state, the journal, prompts or GitHub see it', async () => {
    const dir = join(await tempDir(), 'app');
    const github = await startGitHub();
    const env = {
      PATH: process.env['PATH'] ?? '',
      GITHUB_API_URL: github.baseUrl,
      GITHUB_TOKEN: TOKENS.full,
      DEPLOY_TOKEN,
    };
    const { plan, problems } = await planGitHub(
      { repo: { owner: 'alice', name: 'app' } },
      (await inspectRepository(dir)) as Target,
      dir,
      readSettings(env),
    );
    expect(problems).toEqual([]);
    if (plan === undefined) throw new Error('no plan');
    const { workspace, record } = await setUpGitHub(plan, dir, () =>
      openWorkspace(dir, true, workspaceSettings()),
    );
    if ((await workspace.checkEnvironment?.()) === undefined) {
      await workspace.close();
      return expect.soft('no sandbox works here: checks cannot run').toBe('skipped');
    }
    const model = scriptedModel(
      [
        {
          title: 'Print a report',
          files: ['src/show.sh', 'src/out.txt'],
          check: 'sh src/show.sh; grep -q ok src/out.txt',
          // The first candidate fails its check (a red flag with the output); the others pass, each
          // different, so judges are shown the output.
          write: (n) => [
            { path: 'src/show.sh', content: SCRIPT },
            { path: 'src/out.txt', content: n === 0 ? 'bad\n' : `ok ${n}\n` },
          ],
          summary: 'Print the report',
        },
        {
          title: 'Write the notes',
          files: ['NOTES.md'],
          check: 'test -s NOTES.md',
          write: () => [{ path: 'NOTES.md', content: '# Notes\n' }],
          summary: 'Write the notes',
        },
      ],
      { prefer: 'ok 1' },
    );
    const gemini = await startGemini(model.respond);
    const llm = new GeminiModel({
      model: 'gemini-2.5-flash',
      apiKey: ['AIza', 'K'.repeat(35)].join(''),
      baseUrl: gemini.baseUrl,
    });
    const roles = { planner: new LlmPlanner(llm), worker: new LlmWorker(llm, workspace) };
    const engine: MakerEngine = engineFor(
      dir,
      workspace,
      roles,
      { secrets: secretsOf(env), env: env },
      remotesFor(workspace, TOKENS.full, () => engine.persist()),
    );
    const runId = await engine.create(
      'a report tool',
      { ...geminiConfig, runChecks: true, hitl: 'defer', maxCandidates: 6 },
      { github: record },
    );
    const outcome = await engine.run(runId);
    await workspace.close();
    expect(
      outcome.pending.map((q) => q.id),
      outcome.error,
    ).toEqual(['q-root-veto']);

    // What MAKER keeps: the state (snapshot, log, backup) and the journal.
    const kept = await Promise.all(
      (await readdir(dir))
        .filter((f) => f.startsWith('maker-'))
        .map((f) => readFile(join(dir, f), 'utf8')),
    );
    const state = kept.join('\n');
    expect(leaks(state)).toEqual([]);
    expect(state).toContain('[REDACTED:');
    // Every prompt the model was sent: judges are shown the checks' output.
    const prompts = model.prompts.join('\n');
    expect(leaks(prompts)).toEqual([]);
    expect(prompts).toContain('[REDACTED:');
    // GitHub: the pull request (its body), branches, everything the fake holds.
    const repo = (await github.state()).repos[0];
    expect(repo?.pulls[0]?.body).toMatch(/Checks/);
    expect(leaks(JSON.stringify(repo))).toEqual([]);
    const messages = execFileSync('git', ['log', '--all', '--format=%B'], {
      cwd: dir,
      encoding: 'utf8',
    });
    expect(leaks(messages)).toEqual([]);
  });
});
