import { ConfigError, UsageError } from '../../core/errors.js';
import type { StartIntent } from '../../core/tree/schema.js';
import type { ModelAccess } from '../../app/wiring/model-access.js';
import { runQuota, type RunQuota } from '../../app/start/quota-check.js';
import { join } from 'node:path';
import { STATE_FILE_NAME } from '../../core/workspace-files.js';
import { intentLine, madeBy, pendingStart } from '../../app/start/start-intent.js';
import type { StartInput } from './start-input.js';

/**
 * What `maker_start` checks before it makes anything: one run at a time per repository, a
 * start a kill interrupted, the day's requests; and the intent it records before its first side
 * effect (see `core/tree/intent.ts`). What `maker_resume` checks before it drives a run again is
 * `app/resume-run.ts`, shared with `maker resume`.
 */

/**
 * One run at a time per repository in this server: two would share its engine and branch, and
 * the second would fail only at landing. `runs`: the running runs' repositories, by id;
 * `underWay`: the tool call setting one up there now (`maker_start`, `maker_resume`), if any.
 */
export function refuseSecond(
  dir: string,
  runs: Iterable<[id: string, dir: string | undefined]>,
  underWay: string | undefined,
): void {
  const running = [...runs].find(([, d]) => d === dir)?.[0];
  if (running !== undefined)
    throw new UsageError(
      `Run ${running} is in progress in ${dir}: one run at a time per repository. Wait for it (maker_wait), answer its questions, or cancel it (maker_cancel runId "${running}"), then start again.`,
    );
  if (underWay !== undefined)
    throw new UsageError(
      `A ${underWay} in ${dir} is under way: one run at a time per repository. Wait for its answer, then use maker_wait on its run.`,
    );
}

/** A start a kill interrupted in `dir`. */
export interface InterruptedStart {
  readonly dir: string;
  readonly intent: StartIntent;
}

/** What finishes a start a kill interrupted: `maker_resume`, or `maker resume` in a terminal (a demo's: only there). */
const finishIt = (dir: string, intent: StartIntent) =>
  intent.command === 'demo'
    ? `Ask the person to finish it in a terminal with \`maker resume --dir ${dir}\` (a \`maker demo\` is finished where it serves its own fakes).`
    : `maker_resume finishes it (looking up what was already made, so nothing is made twice) when given its runId "${intent.id}", as \`maker resume --dir ${dir}\` in a terminal does.`;

/** A new run refused while another one's start, which a kill interrupted, is unfinished in `dir`. */
export function pendingStartRefusal(dir: string, intent: StartIntent): UsageError {
  return new UsageError(
    `${dir} holds a run whose start was interrupted: ${intentLine(intent)}. ${finishIt(dir, intent)} To start over instead, delete ${join(dir, STATE_FILE_NAME)} (and, where they exist, ${madeBy(intent)}). Nothing was created or changed.`,
  );
}

/** A `maker demo`'s start is finished in a terminal, where it serves its own fakes again. */
export function refuseDemoFinish(dir: string, intent: StartIntent): void {
  if (intent.command === 'demo')
    throw new UsageError(`${intentLine(intent)}. ${finishIt(dir, intent)}`);
}

/**
 * The starts a kill interrupted in `dirs`, passing over those `underWay` says a start is under way
 * in (in this server, or in another live process that holds the workspace's lock).
 */
export async function interruptedStarts(
  dirs: readonly string[],
  underWay: (dir: string) => Promise<boolean>,
): Promise<InterruptedStart[]> {
  const found: InterruptedStart[] = [];
  for (const dir of new Set(dirs)) {
    if (await underWay(dir)) continue;
    const intent = await pendingStart(dir).catch(() => undefined);
    if (intent !== undefined) found.push({ dir, intent });
  }
  return found;
}

/**
 * The start `maker_resume` finishes: the one `runId` names; without one, the newest that a
 * `maker_start` recorded, when it is newer than the latest unfinished run (`latest`). A terminal's
 * start (`maker run`, `maker demo`, which a person may have stopped on purpose) only by its id.
 */
export function startToFinish(
  starts: readonly InterruptedStart[],
  runId: string | undefined,
  latest: { readonly createdAt: string } | undefined,
): InterruptedStart | undefined {
  if (runId !== undefined) return starts.find((s) => s.intent.id === runId);
  const own = starts
    .filter((s) => s.intent.command === 'mcp')
    .sort((a, b) => a.intent.createdAt.localeCompare(b.intent.createdAt))
    .at(-1);
  return own !== undefined && (latest === undefined || own.intent.createdAt > latest.createdAt)
    ? own
    : undefined;
}

/**
 * `maker_resume` with no run to continue in `dirs` (the workspace first): an interrupted start
 * (`finishable`: not under way) is named with what finishes it; else one still starting, as such.
 */
export async function nothingToResume(
  dirs: readonly string[],
  runId: string | undefined,
  finishable: readonly InterruptedStart[],
): Promise<UsageError> {
  const named = finishable.find((s) => runId === undefined || runId === s.intent.id);
  if (named !== undefined)
    return new UsageError(
      `No unfinished run to continue. ${intentLine(named.intent)}: ${finishIt(named.dir, named.intent)}`,
    );
  for (const dir of dirs) {
    const pending = await pendingStart(dir).catch(() => undefined);
    if (pending !== undefined && (runId === undefined || runId === pending.id))
      return new UsageError(
        `Run ${pending.id} ("${pending.idea}") is still starting in ${dir}, in a process that holds the workspace (or in a tool call of this server): it has no run to continue yet. Wait for that start, then use maker_status.`,
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
