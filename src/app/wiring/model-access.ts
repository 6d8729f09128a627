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

/** The Gemini API key: `GEMINI_API_KEY`, else `GOOGLE_API_KEY` (as `@google/genai` reads them). */
export function apiKeyOf(env: Env): { name: string; value: string } | undefined {
  for (const name of ['GEMINI_API_KEY', 'GOOGLE_API_KEY']) {
    const value = envValue(env, name);
    if (value !== '') return { name, value };
  }
  return undefined;
}

/** Vertex AI's settings, when `GOOGLE_GENAI_USE_VERTEXAI` asks for it and both are set. */
export function vertexOf(env: Env): { project: string; location: string } | undefined {
  if (!/^(true|1)$/i.test(envValue(env, 'GOOGLE_GENAI_USE_VERTEXAI'))) return undefined;
  const project = envValue(env, 'GOOGLE_CLOUD_PROJECT');
  const location = envValue(env, 'GOOGLE_CLOUD_LOCATION');
  return project === '' || location === '' ? undefined : { project, location };
}

/** An executable named `name` in one of the PATH's directories (as a shell would find it). */
export function findOnPath(name: string, env: Env): string | undefined {
  for (const dir of (env['PATH'] ?? '').split(delimiter)) {
    if (dir === '') continue;
    const path = join(dir, name);
    try {
      if (!statSync(path).isFile()) continue;
      accessSync(path, constants.X_OK);
      return path;
    } catch {
      continue;
    }
  }
  return undefined;
}

/** Every access, in the order MAKER prefers them, each with whether it is available and why. */
export function accessChecks(env: Env): AccessCheck[] {
  const key = apiKeyOf(env);
  const vertex = vertexOf(env);
  const gemini = findOnPath('gemini', env);
  const vertexWants = /^(true|1)$/i.test(envValue(env, 'GOOGLE_GENAI_USE_VERTEXAI'));
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
          : vertexWants
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

/** `MAKER_MODEL_ACCESS`, when it names an access (validated where it is given). */
export function forcedAccess(env: Env): ModelAccess | undefined {
  const value = envValue(env, MODEL_ACCESS_SETTING);
  return (MODEL_ACCESSES as readonly string[]).includes(value) ? (value as ModelAccess) : undefined;
}

/**
 * The access a run uses: the forced one when it is available, else the first available in the
 * order key → Vertex AI → Gemini CLI; undefined when there is none (see {@link accessProblems}).
 */
export function chooseAccess(env: Env): AccessCheck | undefined {
  const checks = accessChecks(env);
  const forced = forcedAccess(env);
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
export function accessHow(access: ModelAccess, env: Env): string {
  if (access === 'gemini-cli' && envValue(env, 'GEMINI_CLI') === '1')
    return 'you are in Gemini CLI already, but MAKER cannot find its `gemini` command on the PATH it was given: start Gemini CLI from a terminal where `gemini` runs (MAKER then makes its calls through it, on your sign-in)';
  return ACCESS_HOW[access];
}

/** What introduces the ways to a model access in {@link accessProblems}' message. */
export const ACCESS_WAYS = ' Any one of these works: ';

/**
 * What stops a run that needs Gemini, as sentences naming the fix; empty when an access is
 * available (the forced one, when one is forced). `purpose` says what the model is for.
 */
export function accessProblems(env: Env, purpose: string): string[] {
  const forced = forcedAccess(env);
  const checks = accessChecks(env);
  if (forced !== undefined) {
    const check = checks.find((c) => c.access === forced);
    return check?.ok === true
      ? []
      : [
          `--model-access ${forced} is not available: ${check?.why ?? ''}. To use it, ${accessHow(forced, env)}.`,
        ];
  }
  if (checks.some((c) => c.ok)) return [];
  return [
    `GEMINI_API_KEY is not set, Vertex AI is not configured and no \`gemini\` is on the PATH: ${purpose}.${ACCESS_WAYS}${MODEL_ACCESSES.map((a, i) => `(${i + 1}) ${accessHow(a, env)}`).join('; ')}.`,
  ];
}

/** An invalid `MAKER_MODEL_ACCESS` value, as a problem (it is otherwise ignored). */
export function accessSettingProblem(env: Env): string[] {
  const value = envValue(env, MODEL_ACCESS_SETTING);
  return value === '' || forcedAccess(env) !== undefined
    ? []
    : [`${MODEL_ACCESS_SETTING}=${value} is not a model access: use ${MODEL_ACCESSES.join(', ')}.`];
}
