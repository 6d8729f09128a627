import { ConfigError, UsageError } from '../../core/errors.js';
import type { Settings } from '../settings.js';
import { ACCESS_HOW, accessHow, chooseAccess, forcedAccess } from '../wiring/model-access.js';
import { gemini } from './gemini.js';
import { jules } from './jules.js';
import { julesFake } from './jules-fake.js';
import { checkOptions, type KindOptions } from './kind-options.js';
import type { WorkerFacts, WorkerKind } from './kind.js';
import { sim } from './sim.js';

export {
  DEFAULT_MODEL,
  type RepoFacts,
  type RoleOptions,
  type WorkerFacts,
  type WorkerKind,
} from './kind.js';

/**
 * Every worker kind, by name: a kind is one module of this folder and one line here. Surfaces look
 * kinds up here; they never branch on worker names.
 */
export const WORKERS = {
  gemini,
  jules,
  'jules-fake': julesFake,
  sim,
} as const satisfies Readonly<Record<string, WorkerKind>>;

export type WorkerName = keyof typeof WORKERS;

export const WORKER_NAMES = Object.keys(WORKERS) as [WorkerName, ...WorkerName[]];

/** Whether `name` is a worker kind of this MAKER. */
export function isWorkerName(name: string): name is WorkerName {
  return Object.hasOwn(WORKERS, name);
}

/**
 * The kind a run's state names. A state file names its kind as a string (the state's schema lists
 * no kinds), so a run started by a MAKER with a kind this one lacks is refused here, by name.
 */
export function workerKind(name: string): WorkerKind {
  if (isWorkerName(name)) return WORKERS[name];
  throw new ConfigError(
    `This run's worker kind, "${name}", is not one this MAKER has (${kindsWhere(() => true, '"')}): it was started by another version of MAKER. Resume it with that version.`,
  );
}

/**
 * Where a person follows a session of the kind a run's state names (for status and the view, which
 * show any run, even one of a kind this MAKER lacks: then no page).
 */
export function sessionUrlOf(worker: string): ((id: string) => string) | undefined {
  return isWorkerName(worker) ? WORKERS[worker].sessionUrl : undefined;
}

/** The kinds that satisfy `test`, as `"a" or "b"` (or `and`: for help texts). */
export function kindsWhere(
  test: (kind: WorkerFacts) => boolean,
  quote = '',
  conjunction: 'or' | 'and' = 'or',
): string {
  const names = Object.values(WORKERS)
    .filter(test)
    .map((k) => `${quote}${k.name}${quote}`);
  return names.length <= 1
    ? (names[0] ?? '')
    : `${names.slice(0, -1).join(', ')} ${conjunction} ${names[names.length - 1]}`;
}

/** Every kind with its summary, and how the default is chosen (for help texts and tool schemas). */
export function describeWorkers(quote = ''): string {
  return `${Object.values(WORKERS)
    .map((k) => `${quote}${k.name}${quote}: ${k.summary}`)
    .join(
      '; ',
    )}. When none is given: gemini if a model access is available (a Gemini API key, Vertex AI, or \`gemini\` on the PATH; or MAKER_REPLAY names a recording), otherwise the run is refused (never a silent simulation)`;
}

/**
 * The worker a run uses: the one asked for, else `gemini` when a Gemini key is set. Never a
 * simulation unless asked: with neither, undefined (the surface refuses, naming the ways forward).
 */
export function chooseWorker(
  asked: WorkerName | undefined,
  settings: Settings,
): WorkerKind | undefined {
  if (asked !== undefined) return WORKERS[asked];
  // An access asked for by name is the gemini worker's, available or not (its problems say why not).
  const { access, replay } = settings.model;
  return chooseAccess(access) === undefined && forcedAccess(access) === undefined && replay === ''
    ? undefined
    : gemini;
}

/** How a surface words the ways forward when no worker was chosen. */
export interface NoWorkerWords {
  /** Asking for a worker by name: `--worker sim`, `pass worker "sim"`. */
  readonly pick: (worker: WorkerName) => string;
  /** Setting the Gemini key where this surface reads it. */
  readonly setKey: string;
  readonly demo: string;
}

/** Why no worker was chosen, and the ways forward, in a surface's own words. */
export function noWorkerMessage(words: NoWorkerWords, settings: Settings): string {
  const { pick, setKey, demo } = words;
  return [
    'No worker was chosen and GEMINI_API_KEY is not set, Vertex AI is not configured and no `gemini` is on the PATH, so nothing was started (MAKER never falls back to a simulation on its own). Ways forward:',
    `  - ${setKey} (a key from https://aistudio.google.com/apikey): runs then use the gemini worker (${pick('gemini')} asks for it by name);`,
    `  - or ${ACCESS_HOW.vertex};`,
    `  - or ${accessHow('gemini-cli', settings.model.access)};`,
    `  - ${pick('jules')}, with JULES_API_KEY and one of those model accesses, to have Jules write the code;`,
    `  - ${pick('sim')} for a simulation: placeholder files, no model calls, marked "simulated" everywhere;`,
    `  - ${demo} to watch the whole pipeline offline, in a fresh temporary repository.`,
  ].join('\n');
}

/** Options chosen for a run, by the name of the options they belong to: `{ jules: { plan: 'pro' } }`. */
export type OptionChoices = Readonly<Record<string, Readonly<Record<string, unknown>>>>;

/** Every kind's run options, once per name (the Jules kinds share theirs): for flags and tool inputs. */
export function optionSets(): KindOptions[] {
  const sets = new Map<string, KindOptions>();
  for (const kind of Object.values<WorkerKind>(WORKERS))
    if (kind.options !== undefined && !sets.has(kind.options.name))
      sets.set(kind.options.name, kind.options);
  return [...sets.values()];
}

/** The kinds whose options are named `name`, as `jules and jules-fake`. */
export function kindsWithOptions(name: string, quote = ''): string {
  return kindsWhere((k) => k.options?.name === name, quote, 'and');
}

/**
 * What a run of `kind` keeps of its options: the chosen ones (checked) over `kept` (a resumed
 * run's), over the kind's defaults; undefined for a kind without options. Options of another kind
 * are refused, `named` saying them in the surface's words (`The --jules-… flags`).
 */
export function kindOptions(
  kind: WorkerKind,
  chosen: OptionChoices | undefined,
  how: { named: (name: string) => string; kept?: Readonly<Record<string, unknown>> | undefined },
): Record<string, unknown> | undefined {
  for (const [name, values] of Object.entries(chosen ?? {}))
    if (name !== kind.options?.name && Object.values(values).some((v) => v !== undefined))
      throw new UsageError(
        `${how.named(name)} apply to the ${kindsWithOptions(name)} workers only, not to ${kind.name}.`,
      );
  if (kind.options === undefined) return undefined;
  const values = chosen?.[kind.options.name] ?? {};
  checkOptions(kind.options, values);
  return kind.options.keep(values, how.kept);
}
