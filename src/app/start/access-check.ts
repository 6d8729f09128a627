import { probeGeminiCli } from '../../adapters/gemini-cli/gemini-cli-model.js';
import { ConfigError, MakerError } from '../../core/errors.js';
import type { Settings } from '../settings.js';
import { chooseAccess, type AccessCheck } from '../wiring/model-access.js';
import type { WorkerKind } from '../workers/index.js';

/**
 * The model access a new run will record, settled before anything is created: none for simulated
 * kinds and replays; for Gemini CLI, its sign-in and flags are checked first (`probeGeminiCli`: no
 * model request, no prompt, within the start-up deadline), so a `gemini` that is not signed in,
 * hangs or is too old stops the run here, creating nothing; Ctrl-C (`signal`) ends the check at
 * once. Call after the worker's problems were
 * checked (an access is then available).
 */
export async function settleAccess(
  kind: Pick<WorkerKind, 'simulated'>,
  model: string,
  settings: Settings,
  signal?: AbortSignal,
): Promise<AccessCheck | undefined> {
  if (kind.simulated || settings.model.replay !== '') return undefined;
  const check = chooseAccess(settings.model.access);
  if (check?.access !== 'gemini-cli') return check;
  const probe = await checkGeminiCli(model, settings, signal).catch((error: unknown) => {
    if (error instanceof MakerError && error.code !== 'aborted')
      throw new ConfigError(`${error.message}\nNothing was created or changed.`);
    throw error;
  });
  return { ...check, why: probe.why };
}

/**
 * The person's `gemini` checked as a run would use it: signed in, new enough, in which mode. Throws
 * what to do when it cannot take MAKER's calls. `maker doctor` shows the same.
 */
export async function checkGeminiCli(
  model: string,
  settings: Settings,
  signal?: AbortSignal,
): Promise<{ path: string; why: string; notes: readonly string[] }> {
  const path = settings.model.access.gemini ?? 'gemini';
  const probe = await probeGeminiCli({
    command: path,
    model,
    env: settings.env,
    waits: settings.model.waits,
    signal,
  });
  return {
    path,
    notes: probe.notes,
    why: `Gemini CLI at ${path}, signed in: its own sign-in makes the calls${probe.mode === 'acp' ? ' (ACP mode, one process for all calls)' : ''}${probe.notes.length === 0 ? '' : `; ${probe.notes.join('; ')}`}`,
  };
}
