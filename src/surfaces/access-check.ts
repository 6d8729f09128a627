import { probeGeminiCli } from '../adapters/gemini-cli/gemini-cli-model.js';
import { ConfigError } from '../core/errors.js';
import { replayDir, type Env } from './env.js';
import { chooseAccess, findOnPath, type AccessCheck } from './model-access.js';
import type { WorkerKind } from './workers.js';

/**
 * The model access a new run will record, settled before anything is created: none for simulated
 * kinds and replays; for Gemini CLI, its sign-in is checked first (an ACP session opens without a
 * model request), so a `gemini` that is not signed in stops the run here, creating nothing. Call
 * after the worker's problems were checked (an access is then available).
 */
export async function settleAccess(
  kind: Pick<WorkerKind, 'simulated'>,
  model: string,
  env: Env,
): Promise<AccessCheck | undefined> {
  if (kind.simulated || replayDir(env) !== '') return undefined;
  const check = chooseAccess(env);
  if (check?.access !== 'gemini-cli') return check;
  try {
    await probeGeminiCli({ command: findOnPath('gemini', env) ?? 'gemini', model, env });
  } catch (error) {
    if (error instanceof ConfigError)
      throw new ConfigError(`${error.message}\nNothing was created or changed.`);
    throw error;
  }
  return check;
}
