import { MODEL_ACCESSES } from '../../../app/wiring/model-access.js';
import { flag, list, option } from '../define.js';
import { decimal, installCommand, oneOf, repoGlob, text, wholeNumber } from '../values.js';
import { THINKING_LEVELS } from '../../../core/sampling.js';
import { LIMITS } from '../../../core/limits.js';
import { MAX_FILE_KB } from '../../../app/wiring/candidate-allowances.js';
import { WORKERS, WORKER_NAMES, describeWorkers, optionSets } from '../../../app/workers/index.js';
import { kindFlags } from '../kind-flags.js';
import { RATE_LIMITED_EXIT, USAGE_EXIT, jsonFlag } from './common.js';

/** The options of run, resume and demo, each defined once; every command picks its own. */
export const RUN_OPTIONS = {
  worker: option('--worker <kind>', describeWorkers(), oneOf(WORKER_NAMES)),
  confidence: option(
    '--confidence <level>',
    'low (k=1), medium (k=2, default) or high (k=3): margin, caps, triggers',
    oneOf(['low', 'medium', 'high']),
  ),
  k: option('--k <n>', 'override the vote margin', wholeNumber({ min: 1, max: 20 })),
  hitl: option(
    '--hitl <mode>',
    'how questions are answered: tty (ask here, and on the page with --view; default on a terminal), view (wait for an answer on the page; needs --view; its default off a terminal), defer (save and exit with status 4; default otherwise; answer with `maker answer`), auto (take the leading candidate, accept the result), fail (stop)',
    oneOf(['tty', 'view', 'defer', 'auto', 'fail']),
  ),
  view: flag(
    '--view',
    "serve the live view of the run on 127.0.0.1 (its address, token included, is printed on stderr): the tree, votes, red flags and candidates as they happen, and the questions, answerable there. With --hitl tty or view the run waits for the answer (at the terminal or on the page, whichever comes first); with defer the run goes on without it and an answer on the page is saved for `maker resume`; with auto or fail the page only watches. The page stays open after the run ends, until Ctrl-C; the exit status is still the run's",
  ),
  seed: option(
    '--seed <n>',
    'seed of the simulated planner and worker (default 1)',
    wholeNumber({ min: 0 }),
  ),
  maxDepth: option(
    '--max-depth <n>',
    'deepest decomposition (default 3)',
    wholeNumber({ min: 0, max: 8 }),
  ),
  concurrency: option(
    '--concurrency <n>',
    'paid calls at once: model calls, LLM-written candidates, checks (default 4). Jules sessions are not counted: --jules-concurrency bounds them',
    wholeNumber({ min: 1, max: 64 }),
  ),
  modelAccess: option(
    '--model-access <access>',
    'how MAKER reaches Gemini: key (GEMINI_API_KEY or GOOGLE_API_KEY), vertex (GOOGLE_GENAI_USE_VERTEXAI with project and location) or gemini-cli (your own signed-in `gemini` makes the calls). Default: the first available in that order (`maker doctor` says which); recorded in the run',
    oneOf(MODEL_ACCESSES),
  ),
  dailyLimit: option(
    '--daily-limit <n>',
    'your daily model-request limit, when it differs from the known one of the access (Google sign-in about 1,000; a free key 250; also MAKER_DAILY_REQUESTS). A run expected to use more than half of it asks first',
    wholeNumber({ min: 1, max: 1_000_000 }),
  ),
  confirmQuota: flag(
    '--confirm-quota',
    'start even when the run may use more than half of the daily model requests (without a terminal to ask at, the run is refused instead)',
  ),
  model: option(
    '--model <name>',
    'Gemini model (default gemini-2.5-flash)',
    text('a Gemini model name'),
  ),
  temperature: option(
    '--temperature <t>',
    "the temperature every sample is drawn at, from 0 to 2 (default: the model's table, 1.0 for Gemini 2.5 and 3 as Google advises); recorded in the run's state",
    decimal({ min: 0, max: 2 }),
  ),
  thinkingBudget: option(
    '--thinking-budget <tokens>',
    "Gemini 2.5: hidden reasoning tokens allowed per request, every role (default: the model's table, per role); 0 turns thinking off where the model allows",
    wholeNumber({ min: 0, max: 32_768 }),
  ),
  thinkingLevel: option(
    '--thinking-level <level>',
    "Gemini 3: minimal, low, medium or high thinking for every role (default: the model's table, per role)",
    oneOf(THINKING_LEVELS),
  ),
  checks: flag(
    '--no-checks',
    "don't run checks. By default, where a sandbox works (bubblewrap or unshare), each subtask's check (the planner gives every subtask one) runs on every candidate, beside an acceptance test voted from the subtask's criteria (kept only if it fails without the code), a failing one is a red flag; candidates are run with a probe voted from the criteria and those that print the same vote together; and after every merge the checks below run again on the merged tree; where none works the result is marked unverified. Your --check still runs",
  ),
  runChecks: flag(
    '--run-checks',
    'accepted for older scripts: checks run by default now (see --no-checks); given, a machine without a sandbox refuses the run instead of marking it unverified',
  ),
  check: option(
    '--check <command>',
    'your overall check, e.g. "npm test": run on the composed result with every subtask\'s check, in a sandboxed scratch checkout (needs bubblewrap or unshare), before the final question; its pass/fail and output are shown there, and --hitl auto lands only a result whose checks pass',
    text(
      `a command of at most ${LIMITS.checkChars} characters`,
      new RegExp(`^[^]{1,${LIMITS.checkChars}}$`),
    ),
  ),
  install: option(
    '--install <command>',
    'how checks get the repository\'s dependencies: the command run once per content of the lock files, sandboxed with the network (the only step that has it), into a cache in .git/maker-deps/ that checks see read-only. Default: from the lock file found (npm ci --ignore-scripts, pnpm install --frozen-lockfile, pip install -r requirements.txt --target "$MAKER_DEPS/python", go mod download, …); none: install nothing',
    installCommand(),
  ),
  allowExecutable: list(
    '--allow-executable <glob>',
    'let candidates make files matching this path or glob executable (repeatable; by default a new executable file is a red flag)',
    repoGlob(),
  ),
  allowSymlink: list(
    '--allow-symlink <glob>',
    'let candidates create symbolic links at paths matching this glob (repeatable; by default a symlink is a red flag)',
    repoGlob(),
  ),
  allowWorkflows: flag(
    '--allow-workflows',
    "let candidates write CI workflows (.github/workflows/), which run with the repository's secrets (by default a red flag)",
  ),
  allowInstallFiles: flag(
    '--allow-install-files',
    "let candidates write files that steer package installs: package managers' settings (.npmrc, .yarnrc, .yarnrc.yml, .pypirc, pip.conf, pip.ini, in any directory) and node_modules/, which your own next install would obey (by default a red flag)",
  ),
  maxFileKb: option(
    '--max-file-kb <n>',
    'largest file a candidate may write, in KiB of 1,024 bytes (default: 1,000,000 bytes, just under 977 KiB); a larger one is a red flag',
    wholeNumber({ min: 1, max: MAX_FILE_KB }),
  ),
  replay: option(
    '--replay <dir>',
    'answer every model request from a recording (a directory MAKER_RECORD=<dir> wrote) with no key and no server; requests are matched by content, and one with no recording stops the run, naming it',
    text('a directory'),
  ),
  github: option(
    '--github <owner/name>',
    'the GitHub repository the run works in: created when missing (under your user or an organisation; private unless --github-public), cloned into an empty directory, or made origin of a repository whose history agrees with it. Every node branch is pushed there, the result becomes a pull request into the default branch, and accepting the final veto merges it. Needs a token: GITHUB_TOKEN, or `gh auth token`. Without this flag, a repository whose origin is on GitHub uses it when a token is present',
    text('owner/name', /^[^/\s]+\/[^/\s]+$/),
  ),
  githubPublic: flag('--github-public', 'create the --github repository public (default private)'),
  keepCandidates: flag(
    '--keep-candidates',
    'keep the candidate branches pushed for select questions (maker/<run>/c-…) after the vote (default: deleted once it settles)',
  ),
  json: { ...jsonFlag, help: 'print one JSON summary at the end' },
};

/** The settings the worker kinds read from the environment, once each. */
function environment(): string {
  const seen = new Map<string, string>();
  for (const kind of Object.values(WORKERS))
    for (const { env, purpose } of kind.settings)
      if (!seen.has(env)) seen.set(env, `${purpose} (${kind.name})`);
  return [...seen].map(([env, purpose]) => `  ${env.padEnd(16)} ${purpose}`).join('\n');
}

/** The worker kinds' own options as flags (`--jules-plan`, …): see kind-flags.ts. */
export const KIND_FLAGS = kindFlags();

/** `maker run --help`'s notes: what the kinds say of their options, then the environment. */
export const RUN_NOTES = `${optionSets()
  .flatMap((set) => (set.notes === undefined ? [] : [`${set.notes}\n`]))
  .join('')}Environment:
${environment()}
  GITHUB_TOKEN     the GitHub token (--github): Contents and Pull requests:
                   Read and write, Administration to create repositories
  GITHUB_API_URL   the GitHub API (default https://api.github.com; GitHub
                   Enterprise https://<host>/api/v3; \`maker fake-github\`'s URL)
`;

/** A run's Ctrl-C: nothing is lost. */
export const RUN_INTERRUPTED = [
  130,
  'interrupted (Ctrl-C): nothing is lost; `maker resume` continues a run',
] as const;

export const RUN_EXITS = [
  [0, 'done (landed) or vetoed'],
  [1, 'failed (the summary says why; `maker resume` continues after the cause is fixed)'],
  USAGE_EXIT,
  [4, 'waiting for answers (--hitl defer): `maker answer`, then `maker resume`'],
  [
    5,
    "failed-checks: the result's checks failed or could not run (unverified) and --hitl auto or fail cannot ask whether to land it; nothing landed",
  ],
  RATE_LIMITED_EXIT,
  RUN_INTERRUPTED,
] as const;
