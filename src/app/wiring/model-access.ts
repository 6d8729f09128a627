import { accessSync, constants, statSync } from 'node:fs';
import { delimiter, join } from 'node:path';
import { envValue, type Env } from '../env.js';

/**
 * How MAKER reaches Gemini, chosen once when a run starts and recorded in its state (never a
 * secret): an API key, Vertex AI with application default credentials, or the person's own Gemini
 * CLI (`gemini` on the PATH, signed in as they set it up). MAKER never reads Gemini CLI's
 * credentials and never calls the services behind it directly: with `gemini-cli`, the `gemini`
 * binary makes every call.
 */
export const MODEL_ACCESSES = ['key', 'vertex', 'gemini-cli'] as const;
export type ModelAccess = (typeof MODEL_ACCESSES)[number];

/** The variable that forces a choice (`maker run --model-access`, `maker_start`'s `modelAccess`). */
export const MODEL_ACCESS_SETTING = 'MAKER_MODEL_ACCESS';

/** One access: whether it is available here, and why (names of variables and paths, never values). */
export interface AccessCheck {
  readonly access: ModelAccess;
  readonly ok: boolean;
  readonly why: string;
}

/**
 * What of the environment says how Gemini can be reached here, read once ({@link readAccess}): names
 * and paths, and the key's value for the client that sends it.
 */
export interface AccessSettings {
  /** The Gemini API key: `GEMINI_API_KEY`, else `GOOGLE_API_KEY` (as `@google/genai` reads them). */
  readonly key: { readonly name: string; readonly value: string } | undefined;
  /** Vertex AI's settings, when `GOOGLE_GENAI_USE_VERTEXAI` asks for it and both are set. */
  readonly vertex: { readonly project: string; readonly location: string } | undefined;
  /** `GOOGLE_GENAI_USE_VERTEXAI` asks for Vertex AI (complete or not). */
  readonly vertexAsked: boolean;
  /** The `gemini` command on the PATH, as a shell would find it. */
  readonly gemini: string | undefined;
  /** MAKER runs inside Gemini CLI (its MCP server: `GEMINI_CLI=1`). */
  readonly inGeminiCli: boolean;
  /** The access asked for by name (`MAKER_MODEL_ACCESS`, `--model-access`) as given; '' for none. */
  readonly asked: string;
}

/** The model-access settings of `env`. */
export function readAccess(env: Env): AccessSettings {
  const vertexAsked = /^(true|1)$/i.test(envValue(env, 'GOOGLE_GENAI_USE_VERTEXAI'));
  const project = envValue(env, 'GOOGLE_CLOUD_PROJECT');
  const location = envValue(env, 'GOOGLE_CLOUD_LOCATION');
  const keyName = ['GEMINI_API_KEY', 'GOOGLE_API_KEY'].find((name) => envValue(env, name) !== '');
  return {
    key: keyName === undefined ? undefined : { name: keyName, value: envValue(env, keyName) },
    vertex: vertexAsked && project !== '' && location !== '' ? { project, location } : undefined,
    vertexAsked,
    gemini: findOnPath('gemini', env['PATH'] ?? ''),
    inGeminiCli: envValue(env, 'GEMINI_CLI') === '1',
    asked: envValue(env, MODEL_ACCESS_SETTING),
  };
}

/** The settings with `access` asked for by name (`--model-access`, a run's recorded access), or as they are. */
export function askAccess(settings: AccessSettings, access: string | undefined): AccessSettings {
  return access === undefined ? settings : { ...settings, asked: access };
}

/** An executable named `name` in one of `path`'s directories (as a shell would find it). */
export function findOnPath(name: string, path: string): string | undefined {
  for (const dir of path.split(delimiter)) {
    if (dir === '') continue;
    const file = join(dir, name);
    try {
      if (!statSync(file).isFile()) continue;
      accessSync(file, constants.X_OK);
      return file;
    } catch {
      continue;
    }
  }
  return undefined;
}

/** Every access, in the order MAKER prefers them, each with whether it is available and why. */
export function accessChecks(settings: AccessSettings): AccessCheck[] {
  const { key, vertex, gemini } = settings;
  return [
    {
      access: 'key',
      ok: key !== undefined,
      why:
        key === undefined
          ? 'neither GEMINI_API_KEY nor GOOGLE_API_KEY is set'
          : `${key.name} is set (@google/genai with the key)`,
    },
    {
      access: 'vertex',
      ok: vertex !== undefined,
      why:
        vertex !== undefined
          ? `GOOGLE_GENAI_USE_VERTEXAI=true with project ${vertex.project} in ${vertex.location} (@google/genai on Vertex AI, application default credentials)`
          : settings.vertexAsked
            ? 'GOOGLE_GENAI_USE_VERTEXAI is true but GOOGLE_CLOUD_PROJECT and GOOGLE_CLOUD_LOCATION are not both set'
            : 'GOOGLE_GENAI_USE_VERTEXAI is not true',
    },
    {
      access: 'gemini-cli',
      ok: gemini !== undefined,
      why:
        gemini === undefined
          ? 'no `gemini` command on the PATH'
          : `Gemini CLI at ${gemini}: its own sign-in makes the calls (checked when a run starts)`,
    },
  ];
}

/** The access asked for by name, when it names one (validated where it is given). */
export function forcedAccess(settings: AccessSettings): ModelAccess | undefined {
  return (MODEL_ACCESSES as readonly string[]).includes(settings.asked)
    ? (settings.asked as ModelAccess)
    : undefined;
}

/**
 * The access a run uses: the forced one when it is available, else the first available in the
 * order key → Vertex AI → Gemini CLI; undefined when there is none (see {@link accessProblems}).
 */
export function chooseAccess(settings: AccessSettings): AccessCheck | undefined {
  const checks = accessChecks(settings);
  const forced = forcedAccess(settings);
  if (forced !== undefined) return checks.find((c) => c.access === forced && c.ok);
  return checks.find((c) => c.ok);
}

/** How to make each access available, in one clause each. */
export const ACCESS_HOW: Readonly<Record<ModelAccess, string>> = {
  key: 'set GEMINI_API_KEY (a key from https://aistudio.google.com/apikey; in Gemini CLI: gemini extensions config maker "Gemini API key")',
  vertex:
    'use Vertex AI: GOOGLE_GENAI_USE_VERTEXAI=true with GOOGLE_CLOUD_PROJECT and GOOGLE_CLOUD_LOCATION, and application default credentials (gcloud auth application-default login)',
  'gemini-cli':
    'install Gemini CLI (npm install -g @google/gemini-cli) and sign in: run `gemini` once in a terminal and choose Login with Google; MAKER then runs its calls through your own `gemini`',
};

/**
 * How to make an access available here: inside Gemini CLI (its MCP server: `GEMINI_CLI=1`), the
 * person has Gemini CLI already, so its way is to make its `gemini` command findable, not to
 * install it.
 */
export function accessHow(access: ModelAccess, settings: AccessSettings): string {
  if (access === 'gemini-cli' && settings.inGeminiCli)
    return 'you are in Gemini CLI already, but MAKER cannot find its `gemini` command on the PATH it was given: start Gemini CLI from a terminal where `gemini` runs (MAKER then makes its calls through it, on your sign-in)';
  return ACCESS_HOW[access];
}

/** What introduces the ways to a model access in {@link accessProblems}' message. */
export const ACCESS_WAYS = ' Any one of these works: ';

/**
 * What stops a run that needs Gemini, as sentences naming the fix; empty when an access is
 * available (the forced one, when one is forced). `purpose` says what the model is for.
 */
export function accessProblems(settings: AccessSettings, purpose: string): string[] {
  const forced = forcedAccess(settings);
  const checks = accessChecks(settings);
  if (forced !== undefined) {
    const check = checks.find((c) => c.access === forced);
    return check?.ok === true
      ? []
      : [
          `--model-access ${forced} is not available: ${check?.why ?? ''}. To use it, ${accessHow(forced, settings)}.`,
        ];
  }
  if (checks.some((c) => c.ok)) return [];
  return [
    `GEMINI_API_KEY is not set, Vertex AI is not configured and no \`gemini\` is on the PATH: ${purpose}.${ACCESS_WAYS}${MODEL_ACCESSES.map((a, i) => `(${i + 1}) ${accessHow(a, settings)}`).join('; ')}.`,
  ];
}

/** An invalid `MAKER_MODEL_ACCESS` value, as a problem (it is otherwise ignored). */
export function accessSettingProblem(settings: AccessSettings): string[] {
  const value = settings.asked;
  return value === '' || forcedAccess(settings) !== undefined
    ? []
    : [`${MODEL_ACCESS_SETTING}=${value} is not a model access: use ${MODEL_ACCESSES.join(', ')}.`];
}
