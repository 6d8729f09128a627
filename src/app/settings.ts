import { modelWaitsFrom, type ModelWaits } from '../core/deadlines.js';
import type { RunConfig } from '../core/tree/schema.js';
import type { SandboxWhere } from '../adapters/sandbox/bwrap.js';
import type { LauncherSeam } from '../adapters/git/git-launcher.js';
import { envValue, secretsOf, type Env } from './env.js';
import { declaredLimit } from './start/quota-check.js';
import { askAccess, readAccess, type AccessSettings } from './wiring/model-access.js';
import { checkMemorySeam, crashSeam, gitHelperSeam } from './wiring/seams.js';

/**
 * What a use case reads of the environment, read once at the edge (the CLI's process, the MCP
 * server's constructor) into typed values: how Gemini is reached, where checks are sandboxed, the
 * secrets to redact, the crash tests' checkpoint (one per process, so `<step>@<n>` counts across
 * steps). `env` stays for what is not MAKER's to parse: the environment child processes start in
 * (git, `gemini`, the checks' toolchains, `gh`), a worker kind's own variables (its settings schema
 * reads them) and GitHub's.
 */
export interface Settings {
  readonly model: ModelSettings;
  readonly sandbox: SandboxSettings;
  readonly github: GitHubSettings;
  /** `MAKER_DAILY_REQUESTS`: the person's own daily request limit, declared (`--daily-limit` goes over it). */
  readonly dailyRequests: number | undefined;
  /**
   * The process's keys, to redact wherever they would be written or printed: a list that only
   * grows and is shared by every settings made from these (`withGitHub`, `chooseSettings`). A key
   * found later, such as the token `gh auth token` gives, joins it ({@link knowSecret}); the
   * redactors made over it (`makeRedactor`) follow it, the surfaces' own included.
   */
  readonly secrets: string[];
  readonly seam?: ((step: string) => void) | undefined;
  /** Tests only: the git launcher's helper killed at its nth command (`MAKER_KILL_GIT_HELPER_AT`). */
  readonly gitHelperSeam?: LauncherSeam | undefined;
  /** Tests only: a check's memory limit lowered to this many MiB (`MAKER_TEST_CHECK_MEMORY_MIB`). */
  readonly checkMemoryMiB?: number | undefined;
  readonly env: Env;
}

/** How a run's Gemini model is reached and waited on. */
export interface ModelSettings {
  readonly access: AccessSettings;
  /** `MAKER_REPLAY` (`--replay`): the recording a run's answers come from; '' for none. */
  readonly replay: string;
  /** `MAKER_RECORD`: where every model exchange is also recorded; '' for none. */
  readonly record: string;
  /** `GOOGLE_GEMINI_BASE_URL`: the Gemini API's endpoint; '' for Google's own. */
  readonly baseUrl: string;
  /** The `MAKER_…_S` deadlines of a model call. */
  readonly waits: ModelWaits;
  /** The `MAKER_…_S` settings that are not whole seconds, as problems (a typo never passes silently). */
  readonly waitProblems: readonly string[];
}

/** Where checks would be sandboxed: the PATH the sandbox's programs are found on, and `MAKER_SANDBOX`. */
export type SandboxSettings = SandboxWhere;

/** How GitHub is reached (checked where a run uses it: the plan, the resume). */
export interface GitHubSettings {
  /** `GITHUB_API_URL` as given; '' for https://api.github.com. */
  readonly apiUrl: string;
  /** `GITHUB_TOKEN`; '' when unset (then `gh auth token`'s, if the GitHub CLI is signed in). */
  readonly token: string;
}

/** What a person chose on a surface over the environment's settings (`--model-access`, `--replay`). */
export interface SettingChoices {
  readonly modelAccess?: string | undefined;
  readonly replay?: string | undefined;
}

/**
 * The settings `env` gives, with `choices` over them. `keys` is the surface's own list of keys, when
 * it redacts with one already (the CLI's output): `env`'s keys join it, and it is the settings' list.
 */
export function readSettings(
  env: Env,
  choices: SettingChoices = {},
  keys: string[] = [],
): Settings {
  const { waits, problems } = modelWaitsFrom((n) => envValue(env, n));
  return chooseSettings(
    {
      model: {
        access: readAccess(env),
        replay: envValue(env, 'MAKER_REPLAY'),
        record: envValue(env, 'MAKER_RECORD'),
        baseUrl: envValue(env, 'GOOGLE_GEMINI_BASE_URL'),
        waits,
        waitProblems: problems,
      },
      sandbox: { path: env['PATH'] ?? '', choice: envValue(env, 'MAKER_SANDBOX') || undefined },
      github: { apiUrl: envValue(env, 'GITHUB_API_URL'), token: envValue(env, 'GITHUB_TOKEN') },
      dailyRequests: declaredLimit(env),
      secrets: secretsOf(env, keys),
      seam: crashSeam(env),
      gitHelperSeam: gitHelperSeam(env),
      checkMemoryMiB: checkMemorySeam(env),
      env,
    },
    choices,
  );
}

/**
 * `settings` with `github` over their GitHub (a demo's own fake GitHub, the API a start recorded):
 * a token given joins the process's keys.
 */
export function withGitHub(settings: Settings, github: Partial<GitHubSettings>): Settings {
  const { apiUrl = settings.github.apiUrl, token = settings.github.token } = github;
  secretsOf({ GITHUB_TOKEN: token }, settings.secrets);
  return { ...settings, github: { apiUrl, token } };
}

/**
 * Adds a key found after the settings were read (`gh auth token`'s token) to the process's keys,
 * before any use of it: from then on nothing the process writes or prints carries it. Values under
 * four characters are left out, as every redactor leaves them (they would redact ordinary words).
 */
export function knowSecret(settings: Pick<Settings, 'secrets'>, value: string): void {
  const key = value.trim();
  if (key.length >= 4 && !settings.secrets.includes(key)) settings.secrets.push(key);
}

/**
 * The settings a run keeps: the model access it recorded when it started, over the one the
 * environment asks for now (a start, a resume, its roles).
 */
export function settingsOfRun(
  settings: Settings,
  config: Pick<RunConfig, 'modelAccess'>,
): Settings {
  return chooseSettings(settings, { modelAccess: config.modelAccess });
}

/** `settings` with `choices` over them (a run's recorded access, a surface's flags); undefined ones leave theirs. */
export function chooseSettings(settings: Settings, choices: SettingChoices): Settings {
  const { modelAccess, replay } = choices;
  if (modelAccess === undefined && replay === undefined) return settings;
  return {
    ...settings,
    model: {
      ...settings.model,
      access: askAccess(settings.model.access, modelAccess),
      ...(replay === undefined ? {} : { replay }),
    },
  };
}
