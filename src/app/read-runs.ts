import { join } from 'node:path';
import { MakerError, UsageError } from '../core/errors.js';
import type { Run, StateFile } from '../core/tree/schema.js';
import { JOURNAL_FILE_NAME } from '../core/workspace-files.js';
import { GitWorkspace } from '../adapters/git/git-workspace.js';
import { inspectRepository } from '../adapters/git/inspect.js';
import { Journal } from '../adapters/state/journal.js';
import { makerStateFile } from '../adapters/state/state-file.js';

/**
 * Reading a workspace's runs without driving them, for `maker status` and `maker report`: the state
 * file as it is (no lock: a live run may be writing it; the store reads a consistent state), the
 * run asked for, its journal and its diffs.
 */

/** A workspace's runs as its state file holds them, oldest first. */
export interface WorkspaceRuns {
  readonly dir: string;
  readonly state: StateFile;
  readonly runs: readonly Run[];
}

/** `dir`'s state file as it is now, without the lock (one that cannot be read is an error). */
export function readState(dir: string): Promise<StateFile> {
  return makerStateFile(dir).load();
}

/**
 * `dir`'s state file as {@link readState} reads it, or undefined where `dir` is not a repository
 * (looking never creates one).
 */
export async function repositoryState(dir: string): Promise<StateFile | undefined> {
  if ((await inspectRepository(dir)).kind !== 'repository') return undefined;
  return readState(dir);
}

export async function workspaceRuns(dir: string): Promise<WorkspaceRuns> {
  const state = await readState(dir);
  const runs = Object.values(state.runs).sort((a, b) => a.createdAt.localeCompare(b.createdAt));
  return { dir, state, runs };
}

/** The run `runId` names, else the latest; an error that names the runs there are when none fits. */
export function chosenRun({ dir, state, runs }: WorkspaceRuns, runId?: string): Run {
  if (runs.length === 0) throw noRuns(dir);
  const run = runId === undefined ? runs.at(-1) : state.runs[runId];
  if (run === undefined)
    throw new UsageError(`No run "${runId}" in ${dir}. Runs: ${runs.map((r) => r.id).join(', ')}.`);
  return run;
}

/**
 * There is no run to show: a failure (exit 1), not a usage error — the command was given right,
 * the folder holds nothing yet.
 */
export function noRuns(dir: string): MakerError {
  return new MakerError(
    'no-runs',
    `No MAKER runs in ${dir}. Start one with: maker run "<idea>" --dir ${dir}`,
  );
}

/** The journal's events of run `runId`, oldest first. */
export async function runJournal(dir: string, runId: string): Promise<Record<string, unknown>[]> {
  const events = await new Journal(join(dir, JOURNAL_FILE_NAME)).read();
  return events.filter((e) => e['runId'] === runId);
}

/**
 * Runs `use` with the repository's diffs between two commits, or with none where `dir` cannot be
 * opened as a repository (a report then shows no diffs).
 */
export async function withDiffs<T>(
  dir: string,
  use: (diff: ((from: string, to: string) => Promise<string>) | undefined) => Promise<T>,
): Promise<T> {
  const git = await GitWorkspace.open(dir).catch(() => undefined);
  try {
    return await use(git === undefined ? undefined : (from, to) => git.diff(from, to));
  } finally {
    await git?.close();
  }
}
