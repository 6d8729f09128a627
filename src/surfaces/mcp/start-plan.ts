import { existsSync } from 'node:fs';
import { UsageError, ConfigError } from '../../core/errors.js';
import type { RunConfig, StartIntent } from '../../core/tree/schema.js';
import { finishingStart } from '../../app/resume-run.js';
import type { ModelAccess } from '../../app/wiring/model-access.js';
import { allowanceConfig } from '../../app/wiring/candidate-allowances.js';
import { checkBeforeRun } from '../../app/start/preflight.js';
import { runConfig } from '../../app/wiring/wiring.js';
import {
  DEFAULT_MODEL,
  chooseWorker,
  kindOptions,
  noWorkerMessage,
  type OptionChoices,
  type WorkerKind,
} from '../../app/workers/index.js';
import { chooseSettings, type Settings } from '../../app/settings.js';
import { settleAccess } from '../../app/start/access-check.js';
import { parseRepoSpec } from '../../app/github/target.js';
import type { StartInput } from './start-input.js';
import { checkQuota, pendingStartRefusal } from './start-checks.js';
import { newStartIntent } from '../../app/start/start-intent.js';
import { kindOptionInputs, startSampling } from './tool-inputs.js';

/**
 * Everything `maker_start` checks and decides before it makes anything: the worker and its
 * settings, the repository and its state file (a start a kill interrupted is refused), the
 * remote, the day's requests, the run's configuration and the intent it records first. `signal`
 * (the request's: the client cancelled it) ends the sign-in check of Gemini CLI at once.
 */
export async function planStart(
  input: StartInput,
  dir: string,
  server: Settings,
  signal?: AbortSignal,
) {
  // The access asked for, for this run's checks; the run records the one it settles on.
  const settings = chooseSettings(server, { modelAccess: input.modelAccess });
  // Refused here, before the intent: once it is saved, a refusal would leave a start behind.
  if (input.idea.trim() === '') throw new UsageError('The idea is empty: say what to build.');
  const kind = chooseWorker(input.worker, settings);
  if (kind === undefined)
    throw new ConfigError(
      noWorkerMessage(
        {
          pick: (worker) => `pass worker "${worker}"`,
          setKey:
            'set the extension\'s Gemini key with `gemini extensions config maker "Gemini API key"` and restart Gemini CLI',
          demo: 'or run `maker demo` in a terminal',
        },
        settings,
      ),
    );
  const sampling = startSampling(input, kind, DEFAULT_MODEL);
  if (input.sim !== undefined && !kind.simulated)
    throw new UsageError(
      `The \`sim\` settings apply to simulated workers only, not to ${kind.name}: leave them out.`,
    );
  const workerOptions = kindOptionInputs(input);
  kindOptions(kind, workerOptions, { named: (name) => `The \`${name}\` settings` });
  const allowances = allowanceConfig(
    { ...input.allow, maxFileKb: input.maxFileKb },
    { executables: 'allow.executables', symlinks: 'allow.symlinks', maxFileKb: 'maxFileKb' },
  );
  const ask = {
    ...(input.github === undefined ? {} : { repo: parseRepoSpec(input.github, 'github') }),
    public: input.githubPublic === true,
    keepCandidates: input.keepCandidates === true,
  };
  const {
    target,
    remote,
    state,
    notice: githubNotice,
  } = await checkBeforeRun(
    dir,
    kind,
    settings,
    () => new UsageError(`repo ${JSON.stringify(input.repo)} is a file, not a directory.`),
    { runChecks: input.runChecks === true, check: input.check },
    ask,
  );
  if (state?.starting !== undefined) throw pendingStartRefusal(dir, state.starting);
  const access = await settleAccess(kind, DEFAULT_MODEL, settings, signal);
  const quota = checkQuota(input, access?.access, settings.dailyRequests);
  const config = startConfig(input, kind, {
    access: access?.access,
    workerOptions,
    sampling,
    allowances,
  });
  const intent = newStartIntent({
    idea: input.idea,
    command: 'mcp',
    config,
    check: input.check,
    creates: { directory: !existsSync(dir), gitRepository: target.kind !== 'repository' },
    remote,
  });
  return { kind, target, remote, quota, githubNotice, config, intent };
}

/**
 * What `maker_resume` checks before it finishes a start a kill interrupted: everything again, as
 * the start recorded it (its worker, model access and GitHub repository; see `finishingStart`),
 * and that the start is still unfinished. Its questions will wait for `maker_answer`.
 */
export async function planFinish(recorded: StartIntent, dir: string, server: Settings) {
  const { kind, settings, ask } = finishingStart(recorded, server);
  const notADirectory = () => new UsageError(`${dir} is a file, not a directory.`);
  const { state, remote } = await checkBeforeRun(
    dir,
    kind,
    settings,
    notADirectory,
    { check: recorded.check },
    ask,
  );
  if (state?.starting?.id !== recorded.id)
    throw new UsageError(
      `The start of run ${recorded.id} in ${dir} was finished meanwhile, by another process: maker_status shows its run.`,
    );
  await settleAccess(kind, DEFAULT_MODEL, settings);
  const intent: StartIntent = { ...recorded, config: { ...recorded.config, hitl: 'wait' } };
  return { intent, settings, remote };
}

/** The run's configuration from `maker_start`'s input (its default branch is known once the repository is there). */
function startConfig(
  input: StartInput,
  kind: WorkerKind,
  chosen: {
    access: ModelAccess | undefined;
    workerOptions: OptionChoices | undefined;
    sampling: ReturnType<typeof startSampling>;
    allowances: ReturnType<typeof allowanceConfig>;
  },
): Omit<RunConfig, 'defaultBranch'> {
  const { access, workerOptions, sampling, allowances } = chosen;
  const full: Partial<RunConfig> & Omit<RunConfig, 'defaultBranch'> = runConfig({
    worker: kind.name,
    ...(access === undefined ? {} : { modelAccess: access }),
    ...(workerOptions === undefined ? {} : { workerOptions }),
    hitl: 'wait',
    defaultBranch: '',
    ...(input.confidence === undefined ? {} : { confidence: input.confidence }),
    ...(input.k === undefined ? {} : { k: input.k }),
    ...(input.maxDepth === undefined ? {} : { maxDepth: input.maxDepth }),
    ...(sampling === undefined ? {} : { sampling }),
    runChecks: input.runChecks !== false,
    ...(input.install === undefined ? {} : { install: input.install }),
    ...allowances,
    ...(input.sim?.seed === undefined ? {} : { seed: input.sim.seed }),
    ...(kind.simulated
      ? { sim: { clarify: true, ...withoutUndefined({ ...input.sim, seed: undefined }) } }
      : {}),
  });
  delete full.defaultBranch;
  return full;
}

function withoutUndefined<T extends Record<string, unknown>>(value: T): Partial<T> {
  return Object.fromEntries(Object.entries(value).filter(([, v]) => v !== undefined)) as Partial<T>;
}
