import { ConfigError, UsageError } from '../../core/errors.js';
import type { StartIntent } from '../../core/tree/schema.js';
import type { ModelAccess } from '../../app/wiring/model-access.js';
import { runQuota, type RunQuota } from '../../app/start/quota-check.js';
import { intentLine, pendingStart, pendingStartError } from '../../app/start/start-intent.js';
import type { StartInput } from './start-input.js';

/**
 * What `maker_start` checks before it makes anything: one run at a time per repository, a
 * start a kill interrupted, the day's requests; and the intent it records before its first side
 * effect (see `core/tree/intent.ts`). What `maker_resume` checks before it drives a run again is
 * `app/resume-run.ts`, shared with `maker resume`.
 */

/**
 * One run at a time per repository in this server: two would share its engine and branch, and
 * the second would fail only at landing. `runs`: the running runs' repositories, by id.
 */
export function refuseSecond(
  dir: string,
  runs: Iterable<[id: string, dir: string | undefined]>,
  starting: boolean,
  except?: string,
): void {
  const running = [...runs].find(([id, d]) => id !== except && d === dir)?.[0];
  if (running !== undefined)
    throw new UsageError(
      `Run ${running} is in progress in ${dir}: one run at a time per repository. Wait for it (maker_wait), answer its questions, or cancel it (maker_cancel runId "${running}"), then start again.`,
    );
  if (starting)
    throw new UsageError(
      `Another maker_start for ${dir} is under way: one run at a time per repository. Wait for its answer, then use maker_wait on its run.`,
    );
}

/** What finishes a start from Gemini CLI: `maker_resume` continues runs, not starts. */
const finishInTerminal = (dir: string) =>
  `maker_resume cannot finish a start: ask the person to run \`maker resume --dir ${dir}\` in a terminal (should it say that this server holds the workspace, a live view of it is open here: quit Gemini CLI first).`;

/**
 * A new run refused while another one's start, which a kill interrupted, is unfinished in `dir`:
 * `maker_resume` continues runs, not starts, so the person finishes it in a terminal.
 */
export function pendingStartRefusal(dir: string, intent: StartIntent): UsageError {
  return new UsageError(`${pendingStartError(dir, intent).message} ${finishInTerminal(dir)}`);
}

/**
 * `maker_resume` with no run to continue in `dirs` (the workspace first): a start a kill
 * interrupted there is named, with what finishes it (`maker resume` in a terminal).
 */
export async function nothingToResume(
  dirs: readonly string[],
  runId: string | undefined,
): Promise<UsageError> {
  for (const dir of dirs) {
    const pending = await pendingStart(dir).catch(() => undefined);
    if (pending !== undefined && (runId === undefined || runId === pending.id))
      return new UsageError(
        `${intentLine(pending)}: it has no run to continue yet. ${finishInTerminal(dir)}`,
      );
  }
  return new UsageError(
    runId === undefined
      ? `No unfinished run in ${dirs[0]}. Start one with maker_start.`
      : `No run "${runId}" in ${dirs[0]}.`,
  );
}

/**
 * The run's requests against the access's daily limit: above half of it, refused unless the
 * person agreed (`confirmQuota`). Refused: nothing is created.
 */
export function checkQuota(
  input: Pick<StartInput, 'confidence' | 'k' | 'dailyLimit' | 'confirmQuota'>,
  access: ModelAccess | undefined,
  /** The daily limit the environment declares (`MAKER_DAILY_REQUESTS`). */
  declared: number | undefined,
): RunQuota {
  const quota = runQuota({
    access,
    confidence: input.confidence,
    k: input.k,
    declared: input.dailyLimit ?? declared,
  });
  if (quota.verdict.overHalf && input.confirmQuota !== true)
    throw new ConfigError(
      `Not started: ${quota.text ?? ''}. That is more than half of a day's requests: ask the person whether to go ahead (a smaller idea, or confidence "low", makes fewer). If they say yes, call maker_start again with the same arguments and confirmQuota: true. Nothing was created.`,
    );
  return quota;
}
