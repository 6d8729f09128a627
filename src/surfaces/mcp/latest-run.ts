import type { Run, StateFile } from '../../core/tree/schema.js';

/**
 * The latest run `pick` accepts among the repositories in `dirs` (each read once; `read` gives
 * undefined for one to pass over). A repository whose state cannot be read is passed over unless
 * no run is found, when its error is the answer.
 */
export async function latestRun(
  dirs: Iterable<string>,
  read: (dir: string) => Promise<Pick<StateFile, 'runs'> | undefined>,
  pick: (run: Run) => boolean,
): Promise<{ run: Run; dir: string } | undefined> {
  let best: { run: Run; dir: string } | undefined;
  let failure: Error | undefined;
  for (const dir of new Set(dirs)) {
    try {
      const state = await read(dir);
      if (state === undefined) continue;
      for (const run of Object.values(state.runs))
        if (pick(run) && (best === undefined || run.createdAt > best.run.createdAt))
          best = { run, dir };
    } catch (error) {
      failure ??= error instanceof Error ? error : new Error(String(error));
    }
  }
  if (best === undefined && failure !== undefined) throw failure;
  return best;
}

/** `read`, called once per directory: later calls share the first call's answer. */
export function once<T>(read: (dir: string) => Promise<T>): (dir: string) => Promise<T> {
  const read_ = new Map<string, Promise<T>>();
  return (dir) => {
    let found = read_.get(dir);
    if (found === undefined) read_.set(dir, (found = read(dir)));
    return found;
  };
}
