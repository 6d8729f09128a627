import { MODEL_ACCESSES, accessChecks, chooseAccess, forcedAccess } from '../../model-access.js';
import type { Env } from '../../env.js';
import { defineCommand, option } from '../define.js';
import { oneOf } from '../values.js';
import { jsonFlag } from './common.js';

/**
 * One part of `maker doctor`'s report: a title, its lines for a person, and its facts for `--json`.
 * Never a secret: names of variables and paths only. Other checks add a section to
 * {@link DOCTOR_SECTIONS}.
 */
export interface DoctorSection {
  readonly key: string;
  readonly title: string;
  readonly check: (env: Env) => { lines: string[]; facts: Record<string, unknown> };
}

/** Which model access a run would use, and why; each one's state. */
export const modelAccessSection: DoctorSection = {
  key: 'modelAccess',
  title: 'Model access',
  check: (env) => {
    const checks = accessChecks(env);
    const chosen = chooseAccess(env);
    const forced = forcedAccess(env);
    const head =
      chosen !== undefined
        ? `A run would use: ${chosen.access}${forced === undefined ? ' (the first available of key, vertex, gemini-cli)' : ' (asked for)'}`
        : forced !== undefined
          ? `A run would be refused: ${forced} was asked for and is not available`
          : 'A run that needs Gemini would be refused: no model access is available';
    return {
      lines: [
        head,
        ...checks.map((c) => `  ${c.ok ? 'yes' : 'no '}  ${c.access.padEnd(10)} ${c.why}`),
      ],
      facts: {
        chosen: chosen?.access ?? null,
        forced: forced ?? null,
        accesses: checks.map((c) => ({ access: c.access, available: c.ok, why: c.why })),
      },
    };
  },
};

/** Every section, in the order the report shows them. */
export const DOCTOR_SECTIONS: DoctorSection[] = [modelAccessSection];

export const doctorCommand = defineCommand({
  name: 'doctor',
  summary: 'say what a run here would use (model access) and why, changing nothing',
  description: `Checks this environment, changing nothing and printing no secret.

Model access: a run reaches Gemini with an API key (GEMINI_API_KEY or
GOOGLE_API_KEY), else Vertex AI (GOOGLE_GENAI_USE_VERTEXAI=true with
GOOGLE_CLOUD_PROJECT and GOOGLE_CLOUD_LOCATION), else your own Gemini CLI
(\`gemini\` on the PATH, signed in). Its sign-in is checked when a run starts.`,
  options: {
    modelAccess: option(
      '--model-access <access>',
      'as `maker run --model-access`: say whether this one would be used',
      oneOf(MODEL_ACCESSES),
    ),
    json: jsonFlag,
  },
  exits: [
    [0, 'checked'],
    [2, 'usage error'],
  ],
  run: async (input, ctx): Promise<number> => (await import('./doctor-run.js')).run(input, ctx),
});
