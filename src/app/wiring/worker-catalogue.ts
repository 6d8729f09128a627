import type { JulesConfig, RunConfig } from '../../core/tree/schema.js';

/**
 * What each worker kind is, without what builds it: light enough for the MCP server's tool
 * schemas, which are listed before any run needs a model, Jules or git (see workers.ts for the
 * kinds themselves).
 */

export type WorkerName = RunConfig['worker'];

/**
 * The page where a person follows Jules session `id` (the `url` Jules gives each session). Here,
 * not in the Jules adapter: this catalogue is loaded before any run, without Jules's code.
 */
export function julesSessionUrl(id: string): string {
  return `https://jules.google.com/session/${encodeURIComponent(id)}`;
}

/** The Gemini model a run plans, writes and judges with unless told otherwise. */
export const DEFAULT_MODEL = 'gemini-2.5-flash';

/** What each Jules plan allows: sessions at once, and sessions per 24 hours. */
export const JULES_PLANS = {
  free: { concurrency: 3, dailySessions: 15 },
  pro: { concurrency: 15, dailySessions: 100 },
  ultra: { concurrency: 60, dailySessions: 300 },
} as const satisfies Record<string, Omit<JulesConfig, 'planReview'>>;

/** A worker kind's description: for help texts, tool schemas and the checks before a run. */
export interface WorkerFacts {
  readonly name: WorkerName;
  /** One line for help texts: what it does and what it needs. */
  readonly summary: string;
  /** Its candidates (and plans) are simulated, not real work: every output of its runs says so. */
  readonly simulated: boolean;
  /** Defaults of the Jules settings, for kinds that take them (`--jules-…`, `jules: {…}`). */
  readonly julesDefaults?: JulesConfig;
  /** The settings it reads from the environment, each with what it is for. */
  readonly settings: readonly { readonly env: string; readonly purpose: string }[];
  /** The page where a person follows one of its sessions, for kinds whose sessions have one. */
  readonly sessionUrl?: (id: string) => string;
}

const OUTAGE_SETTING = {
  env: 'MAKER_JULES_OUTAGE_S',
  purpose: 'seconds Jules may fail every call before the run stops (default 600)',
};

/** Every worker kind's facts, by name. */
export const WORKER_FACTS: Readonly<Record<WorkerName, WorkerFacts>> = {
  gemini: {
    name: 'gemini',
    summary:
      'Gemini writes each candidate as file edits (needs a model access: a Gemini API key, Vertex AI, or your own signed-in `gemini`)',
    simulated: false,
    settings: [
      {
        env: 'GEMINI_API_KEY',
        purpose: 'Gemini plans, writes, judges and reviews (or GOOGLE_API_KEY)',
      },
      {
        env: 'GOOGLE_GENAI_USE_VERTEXAI',
        purpose: 'true: Vertex AI instead, with GOOGLE_CLOUD_PROJECT and GOOGLE_CLOUD_LOCATION',
      },
      {
        env: 'MAKER_MODEL_ACCESS',
        purpose: 'key, vertex or gemini-cli: how to reach Gemini (as --model-access)',
      },
      { env: 'MAKER_RECORD', purpose: 'record every model exchange as files in this directory' },
      { env: 'MAKER_REPLAY', purpose: 'answer from a recording instead (as --replay)' },
    ],
  },
  jules: {
    name: 'jules',
    summary:
      'Jules sessions write each candidate (needs JULES_API_KEY, a model access for Gemini and the repository on GitHub, connected to Jules)',
    simulated: false,
    julesDefaults: { ...JULES_PLANS.free, planReview: false },
    sessionUrl: julesSessionUrl,
    settings: [
      { env: 'JULES_API_KEY', purpose: 'Jules sessions write the candidates' },
      { env: 'GEMINI_API_KEY', purpose: 'Gemini plans, judges and resolves merge conflicts' },
      {
        env: 'JULES_SOURCE',
        purpose: 'the Jules source, when origin is not the GitHub repository',
      },
      { env: 'JULES_BASE_URL', purpose: 'the Jules API endpoint' },
      { env: 'JULES_POLL_MS', purpose: 'first poll delay and cap in ms (default 15000:60000)' },
      OUTAGE_SETTING,
    ],
  },
  'jules-fake': {
    name: 'jules-fake',
    summary:
      'the Jules protocol against a local fake server with a simulated agent: offline, placeholder files',
    simulated: true,
    // The fake has no plan to respect: wide limits, so demos show the pipeline.
    julesDefaults: { ...JULES_PLANS.pro, dailySessions: 10_000, planReview: false },
    settings: [OUTAGE_SETTING],
  },
  sim: {
    name: 'sim',
    summary: 'a seeded offline simulation: placeholder files, no model calls, no key',
    simulated: true,
    settings: [],
  },
};

export const WORKER_NAMES = Object.keys(WORKER_FACTS) as [WorkerName, ...WorkerName[]];

/** The kinds that satisfy `test`, as `"a" or "b"` (for help texts). */
export function kindsWhere(test: (kind: WorkerFacts) => boolean, quote = ''): string {
  const names = Object.values(WORKER_FACTS)
    .filter(test)
    .map((k) => `${quote}${k.name}${quote}`);
  return names.length <= 1
    ? (names[0] ?? '')
    : `${names.slice(0, -1).join(', ')} or ${names[names.length - 1]}`;
}

/** Every kind with its summary, and how the default is chosen (for help texts and tool schemas). */
export function describeWorkers(quote = ''): string {
  return `${Object.values(WORKER_FACTS)
    .map((k) => `${quote}${k.name}${quote}: ${k.summary}`)
    .join(
      '; ',
    )}. When none is given: gemini if a model access is available (a Gemini API key, Vertex AI, or \`gemini\` on the PATH; or MAKER_REPLAY names a recording), otherwise the run is refused (never a silent simulation)`;
}
