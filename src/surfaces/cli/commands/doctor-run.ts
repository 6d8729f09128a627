import { sandboxReport } from '../../../app/sandbox-report.js';
import { RED_FLAG_RULES } from '../../../core/red-flags/index.js';
import { checkGeminiCli } from '../../../app/start/access-check.js';
import {
  ACCESS_HOW,
  ACCESS_WAYS,
  MODEL_ACCESSES,
  accessChecks,
  accessProblems,
  forcedAccess,
  type AccessCheck,
} from '../../../app/wiring/model-access.js';
import { DEFAULT_MODEL, WORKERS } from '../../../app/workers/index.js';
import { cleanDependenciesSaid } from './doctor-clean.js';
import type { Settings } from '../../../app/settings.js';
import type { CliContext, InputOf } from '../define.js';
import type { doctorCommand } from './doctor.js';
import { cliSettings } from './run-choices.js';

/**
 * One part of `maker doctor`'s report: a title, its lines for a person, and its facts for `--json`.
 * Never a secret: names of variables and paths only. Other checks add a section to
 * {@link DOCTOR_SECTIONS}.
 */
export interface DoctorSection {
  readonly key: string;
  readonly title: string;
  readonly check: (
    settings: Settings,
    /** The facts of an earlier section, by its key (a section may build on one shown above it). */
    earlier: (key: string) => Promise<Record<string, unknown>>,
  ) =>
    | { lines: string[]; facts: Record<string, unknown> }
    | Promise<{ lines: string[]; facts: Record<string, unknown> }>;
}

/**
 * Which model access a run would use, and why; each one's state. A `gemini` on the PATH is checked
 * as a run checks it (signed in, new enough: `checkGeminiCli`, no model request); when nothing is
 * available, the ways to make one so.
 */
export const modelAccessSection: DoctorSection = {
  key: 'modelAccess',
  title: 'Model access',
  check: async (settings) => {
    const checks = await Promise.all(
      accessChecks(settings.model.access).map(async (c): Promise<AccessCheck> => {
        if (c.access !== 'gemini-cli' || !c.ok) return c;
        try {
          return { ...c, why: (await checkGeminiCli(DEFAULT_MODEL, settings)).why };
        } catch (error) {
          return { ...c, ok: false, why: error instanceof Error ? error.message : String(error) };
        }
      }),
    );
    const forced = forcedAccess(settings.model.access);
    const chosen = checks.find((c) => c.ok && (forced === undefined || c.access === forced));
    const head =
      chosen !== undefined
        ? `A run would use: ${chosen.access}${forced === undefined ? ' (the first available of key, vertex, gemini-cli)' : ' (asked for)'}`
        : forced !== undefined
          ? `A run would be refused: ${forced} was asked for and is not available`
          : 'A run that needs Gemini would be refused: no model access is available';
    const missing = MODEL_ACCESSES.filter(
      (a) => !checks.some((c) => c.access === a && c.ok) && (forced === undefined || a === forced),
    );
    return {
      lines: [
        head,
        ...checks.map((c) => `  ${c.ok ? 'yes' : 'no '}  ${c.access.padEnd(10)} ${c.why}`),
        ...(chosen !== undefined
          ? []
          : ['Ways forward (any one works):', ...missing.map((a) => `  - ${a}: ${ACCESS_HOW[a]}`)]),
      ],
      facts: {
        chosen: chosen?.access ?? null,
        forced: forced ?? null,
        accesses: checks.map((c) => ({ access: c.access, available: c.ok, why: c.why })),
        waysForward:
          chosen !== undefined ? [] : missing.map((a) => ({ access: a, how: ACCESS_HOW[a] })),
      },
    };
  },
};

/**
 * Whether each worker kind has what it needs here, as the kind itself says: its settings
 * (unset required ones, invalid values) and what else it needs (a model access; the repository's
 * GitHub origin, which depends on the folder, is checked when a run starts there). Names of
 * variables only, never a value that could be a secret.
 */
export const workersSection: DoctorSection = {
  key: 'workers',
  title: 'Workers',
  check: async (settings, earlier) => {
    // A model access configured but failing its check (a `gemini` not signed in) passes a kind's
    // own problems, which look at the settings only: Model access's verdict says it. A kind that
    // is not simulated calls a model (as `settleAccess` has it).
    const failing =
      (await earlier('modelAccess'))['chosen'] === null &&
      accessProblems(settings.model.access, '').length === 0;
    const kinds = Object.values(WORKERS).map((kind) => ({
      name: kind.name,
      simulated: kind.simulated,
      problems: [
        ...kind.problems(settings),
        ...(!kind.simulated && failing
          ? ['the model access set up here does not work: see Model access, above.']
          : []),
      ],
    }));
    const width = Math.max(...kinds.map((k) => k.name.length));
    return {
      lines: [
        'Whether each kind has what it needs here (what it needs of the folder, such as a GitHub origin, is checked when a run starts there):',
        ...kinds.flatMap((k) => [
          `  ${k.problems.length === 0 ? 'yes' : 'no '}  ${k.name.padEnd(width)}  ${
            k.problems.length === 0
              ? `has what it needs${k.simulated ? ' (simulated: placeholder files, no model calls)' : ''}`
              : 'lacks:'
          }`,
          ...k.problems.map((p) => `         ${' '.repeat(width)}- ${shortened(p)}`),
        ]),
      ],
      facts: { kinds: kinds.map((k) => ({ ...k, ready: k.problems.length === 0 })) },
    };
  },
};

/** A problem as the workers' lines show it: the ways to a model access are listed once, above. */
function shortened(problem: string): string {
  const at = problem.indexOf(ACCESS_WAYS);
  return at < 0 ? problem : `${problem.slice(0, at)} (the ways forward: Model access, above)`;
}

/** The sandbox report ({@link sandboxReport}) as lines and facts. */
export const sandboxSection: DoctorSection = {
  key: 'sandbox',
  title: 'Checks',
  check: async (settings) => {
    const report = await sandboxReport(settings.sandbox);
    const { chosen, choice, choiceProblem, limits } = report;
    const head =
      choiceProblem !== ''
        ? `A run would be refused: ${choiceProblem}`
        : chosen !== undefined
          ? `Checks would run in: ${chosen}`
          : choice === 'none'
            ? `${report.reason}: checks would not run, and results would be UNVERIFIED`
            : 'No sandbox works here: checks would not run, and results would be UNVERIFIED';
    const mib = Math.round(limits.memoryBytes / (1024 * 1024));
    return {
      lines: [
        head,
        ...report.sandboxes.map(
          (s) =>
            `  ${s.works ? 'yes' : 'no '}  ${s.name.padEnd(10)} ${s.works ? 'works' : `does not work here: ${s.why}`}${s.allowed ? '' : ' (not used: MAKER_SANDBOX)'}`,
        ),
        ...(choice === undefined ? [] : [`MAKER_SANDBOX is ${JSON.stringify(choice)}`]),
        `Limits of a check: ${limits.processesMax} processes (${limitWords(limits.processes)}), ${mib} MiB of memory (${limitWords(limits.memory)})`,
      ],
      facts: {
        chosen: chosen ?? null,
        choice: choice ?? null,
        choiceProblem: choiceProblem === '' ? null : choiceProblem,
        sandboxes: report.sandboxes,
        limits,
      },
    };
  },
};

/** How a limit holds, in words. */
function limitWords(how: string): string {
  switch (how) {
    case 'cgroup v2':
    case 'cgroup v1':
      return `held by a control group, ${how}`;
    case 'rlimit':
      return 'held per process only: MAKER may not make a control group here';
    default:
      return 'NOT held: MAKER may not make a control group here, and per-process limits do not bind root';
  }
}

/** Every section, in the order the report shows them. */
export const DOCTOR_SECTIONS: DoctorSection[] = [
  modelAccessSection,
  workersSection,
  sandboxSection,
];

/** The red-flag registry as `maker doctor --rules` prints it: a table, or `{rules: [...]}`. */
export function rulesReport(json: boolean): string {
  const rules = RED_FLAG_RULES.map(({ id, scope, description }) => ({ id, scope, description }));
  if (json) return `${JSON.stringify({ rules })}\n`;
  const width = Math.max(...rules.map((r) => r.id.length));
  return `Red-flag rules (${rules.length}; a flagged answer or candidate is discarded and drawn again):\n${rules
    .map((r) => `  ${r.scope.padEnd(8)} ${r.id.padEnd(width)}  ${r.description}`)
    .join('\n')}\n`;
}

/** `maker doctor`, loaded when it runs (see doctor.ts for its options and help). */
export async function run(
  { options: o }: InputOf<typeof doctorCommand>,
  { io }: CliContext,
): Promise<number> {
  if (o.rules === true) {
    io.stdout(rulesReport(o.json === true));
    return 0;
  }
  if (o.cleanDeps === true) {
    const said = await cleanDependenciesSaid(o.dir);
    io.stdout(o.json === true ? `${JSON.stringify({ cleanDeps: said })}\n` : `${said}\n`);
    return 0;
  }
  const settings = cliSettings(io, { modelAccess: o.modelAccess });
  // Side by side, each able to build on one above it.
  const checked = new Map<string, Promise<{ lines: string[]; facts: Record<string, unknown> }>>();
  for (const s of DOCTOR_SECTIONS)
    checked.set(
      s.key,
      Promise.resolve().then(() =>
        s.check(settings, async (key) => (await checked.get(key))?.facts ?? {}),
      ),
    );
  const results = await Promise.all(
    DOCTOR_SECTIONS.map(async (s) => ({ section: s, result: await checked.get(s.key)! })),
  );
  if (o.json === true) {
    io.stdout(
      `${JSON.stringify(Object.fromEntries(results.map(({ section, result }) => [section.key, result.facts])))}\n`,
    );
    return 0;
  }
  io.stdout(
    `${results.map(({ section, result }) => [`${section.title}:`, ...result.lines.map((l) => `  ${l}`)].join('\n')).join('\n\n')}\n`,
  );
  return 0;
}
