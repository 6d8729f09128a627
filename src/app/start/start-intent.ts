import { existsSync } from 'node:fs';
import { rm } from 'node:fs/promises';
import { join } from 'node:path';
import { makerStateFile } from '../../adapters/state/state-file.js';
import { STATE_FILE_NAME, STATE_LOG_FILE_NAME } from '../../core/workspace-files.js';
import { MakerError, makeRedactor, UsageError } from '../../core/errors.js';
import type { StartIntent } from '../../core/tree/schema.js';
import { newRunId } from '../../core/tree/run-id.js';
import type { RemotePlan } from './remotes.js';

/**
 * A run's start, recorded in `maker-state.json` before its first side effect (see
 * `core/tree/intent.ts`): saved, dropped when the start is refused with nothing made, and shown.
 */

/**
 * What a new start records before it makes anything, for `maker run`, `maker demo` and
 * `maker_start` alike: its id, idea, configuration and check, what it will create, and the GitHub
 * repository it works in (`served`: a demo's own fake GitHub, recorded before it is served).
 */
export function newStartIntent(start: {
  readonly idea: string;
  readonly command: StartIntent['command'];
  readonly config: StartIntent['config'];
  readonly check?: string | undefined;
  readonly creates: { readonly directory: boolean; readonly gitRepository: boolean };
  readonly remote: RemotePlan | undefined;
  readonly served?: StartIntent['github'];
}): StartIntent {
  const gh = start.remote?.github;
  const github: StartIntent['github'] =
    start.served ??
    (gh === undefined
      ? undefined
      : {
          owner: gh.owner,
          name: gh.name,
          apiUrl: gh.apiUrl,
          public: gh.public,
          keepCandidates: gh.keepCandidates,
        });
  const now = new Date();
  return {
    id: newRunId(now),
    idea: start.idea,
    createdAt: now.toISOString(),
    command: start.command,
    config: start.config,
    ...(start.check === undefined ? {} : { check: start.check }),
    creates: {
      ...start.creates,
      githubRepository: start.served !== undefined || gh?.create === true,
    },
    ...(github === undefined ? {} : { github }),
  };
}

/** The start a kill interrupted in `dir`, if any (read only; a missing folder has none). */
export async function pendingStart(dir: string): Promise<StartIntent | undefined> {
  if (!existsSync(join(dir, STATE_FILE_NAME))) return undefined;
  return (await makerStateFile(dir).load()).starting;
}

/** Saves the start under way (the workspace's lock is held). */
export async function recordIntent(
  dir: string,
  intent: StartIntent,
  secrets: readonly string[],
): Promise<void> {
  const store = makerStateFile(dir, makeRedactor(secrets));
  const state = await store.load();
  state.starting = intent;
  await store.save(state);
}

/**
 * Forgets a start that made nothing (refused before its first write): the state file goes too when
 * this start made it, so the folder is as it was.
 */
export async function dropIntent(dir: string, id: string, madeStateFile: boolean): Promise<void> {
  if (madeStateFile) {
    for (const name of [STATE_FILE_NAME, STATE_LOG_FILE_NAME, `${STATE_FILE_NAME}.bak`])
      await rm(join(dir, name), { force: true });
    return;
  }
  const store = makerStateFile(dir);
  const state = await store.load();
  if (state.starting?.id !== id) return;
  state.starting = undefined;
  await store.save(state);
}

/** One line on a start a kill interrupted: which, since when, what it was making. */
export function intentLine(intent: StartIntent): string {
  const where =
    intent.github === undefined
      ? 'locally'
      : `on GitHub ${intent.github.owner}/${intent.github.name}${intent.github.demoFake === true ? " (the demo's own fake GitHub, SIMULATED)" : ''}`;
  return `Run ${intent.id} — interrupted while starting (${intent.command === 'mcp' ? 'maker_start' : `maker ${intent.command}`}, ${intent.createdAt}) — "${intent.idea}" — ${where}`;
}

/** What finishes an interrupted start. */
export const FINISH_START =
  '`maker resume` finishes setting it up (looking up what was already made, so nothing is made twice) and runs it.';

/** A new run refused while another one's start is unfinished in the folder. */
export function pendingStartError(dir: string, intent: StartIntent): UsageError {
  return new UsageError(
    `${dir} holds a run whose start was interrupted: ${intentLine(intent)}. ${FINISH_START} To start over instead, delete ${join(dir, STATE_FILE_NAME)} (and, where they exist, ${madeBy(intent)}). Nothing was created or changed.`,
  );
}

/** What an interrupted start may have made, for a person cleaning up. */
export function madeBy(intent: StartIntent): string {
  const parts = [
    ...(intent.creates.gitRepository ? ['its .git'] : []),
    ...(intent.github !== undefined && intent.creates.githubRepository
      ? [
          intent.github.demoFake === true
            ? "the demo fake GitHub's world in .git/maker-fake-github"
            : `the GitHub repository ${intent.github.owner}/${intent.github.name}, if it was created`,
        ]
      : []),
  ];
  return parts.length === 0 ? "nothing beyond MAKER's files" : parts.join(' and ');
}

/**
 * A start stopped by Ctrl-C (exit 130): its message says what was left and what to do. `made` is
 * what the start had made when it stopped (undefined: nothing yet, not even its record).
 */
export class InterruptedStart extends MakerError {
  /** Recognised by name where this module is not loaded (`maker`'s entry loads no implementation). */
  override readonly name = 'InterruptedStart';

  constructor(dir: string, intent: StartIntent | undefined, made: string | undefined) {
    super(
      'aborted',
      intent === undefined
        ? `Stopped before anything was made: nothing was created or changed in ${dir} (the workspace's lock was released). Run the same command again to start.`
        : `Stopped while starting run ${intent.id}, before it ran. Left in ${dir}: the run's start recorded in ${STATE_FILE_NAME}${made === undefined ? '' : `, ${made}`}; the workspace's lock was released. Next: ${FINISH_START} Or, to forget it: delete ${join(dir, STATE_FILE_NAME)} (and, where they exist, ${madeBy(intent)}).`,
    );
  }
}
