import { resolve } from 'node:path';
import { UsageError } from '../../../core/errors.js';
import type { SamplingOverrides, ThinkingLevel } from '../../../core/sampling.js';
import type { RunConfig } from '../../../core/tree/schema.js';
import { allowanceConfig } from '../../../app/wiring/candidate-allowances.js';
import { DEFAULT_MODEL, calibratedK } from '../../../app/calibration.js';
import type { WorkerKind } from '../../../app/workers/index.js';
import type { CliIo } from '../io.js';
import { readSettings, type Settings } from '../../../app/settings.js';

/** What `--allow-…` and `--max-file-kb` ask for, as run configuration (validated, all problems at once). */
export function allowanceChoices(o: {
  allowExecutable?: string[] | undefined;
  allowSymlink?: string[] | undefined;
  allowWorkflows?: boolean | undefined;
  allowInstallFiles?: boolean | undefined;
  maxFileKb?: number | undefined;
}): { allow?: Partial<RunConfig['allow']>; maxFileBytes?: number } {
  return allowanceConfig(
    {
      executables: o.allowExecutable,
      symlinks: o.allowSymlink,
      workflows: o.allowWorkflows,
      installFiles: o.allowInstallFiles,
      maxFileKb: o.maxFileKb,
    },
    { executables: '--allow-executable', symlinks: '--allow-symlink', maxFileKb: '--max-file-kb' },
  );
}

/**
 * The confidence level and k of a new run: as chosen, or with `auto` the k the workspace's
 * calibration measured for the run's model (said on stderr), with the caps of the nearest level.
 */
export async function chooseConfidence(
  io: CliIo,
  o: { confidence?: string | undefined; k?: number | undefined; model?: string | undefined },
  dir: string,
  kind: WorkerKind,
): Promise<{ confidence: 'low' | 'medium' | 'high'; k?: number }> {
  if (o.confidence !== 'auto') {
    const confidence = (o.confidence ?? 'medium') as 'low' | 'medium' | 'high';
    return o.k === undefined ? { confidence } : { confidence, k: o.k };
  }
  if (o.k !== undefined)
    throw new UsageError(
      '--confidence auto takes k from the calibration: leave out --k, or choose a level.',
    );
  const { k, note } = await calibratedK(dir, kind.simulated ? 'sim' : (o.model ?? DEFAULT_MODEL));
  io.stderr(`maker: ${note}\n`);
  return { confidence: k <= 1 ? 'low' : k === 2 ? 'medium' : 'high', k };
}

/**
 * The settings of a command that runs: the environment's, with `--model-access` and `--replay`
 * (its directory, said on stderr) over them.
 */
export function cliSettings(
  io: CliIo,
  o: { modelAccess?: string | undefined; replay?: string | undefined },
): Settings {
  if (o.replay === undefined)
    return readSettings(io.env, { modelAccess: o.modelAccess }, io.secrets);
  const replay = resolve(io.cwd, o.replay);
  io.stderr(`maker: replaying model answers from ${replay} (no key, no server)\n`);
  return readSettings(io.env, { modelAccess: o.modelAccess, replay }, io.secrets);
}

/** What `--temperature`, `--thinking-budget` and `--thinking-level` ask for (checked against the model when the run is made). */
export function samplingChoices(o: {
  temperature?: number | undefined;
  thinkingBudget?: number | undefined;
  thinkingLevel?: ThinkingLevel | undefined;
}): { sampling?: SamplingOverrides } {
  const sampling: SamplingOverrides = {
    ...(o.temperature === undefined ? {} : { temperature: o.temperature }),
    ...(o.thinkingBudget === undefined ? {} : { thinkingBudget: o.thinkingBudget }),
    ...(o.thinkingLevel === undefined ? {} : { thinkingLevel: o.thinkingLevel }),
  };
  return Object.keys(sampling).length === 0 ? {} : { sampling };
}
