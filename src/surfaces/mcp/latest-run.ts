import type { Run } from '../../core/tree/schema.js';
import type { MakerEngine } from '../../engine/maker-engine.js';

/**
 * The latest run `pick` accepts among the repositories in `dirs` (each looked at once). A
 * repository that cannot be opened (another process holds it) is passed over unless no run is
 * found, when its error is the answer.
 */
export async function latestRun<W extends { readonly engine: Pick<MakerEngine, 'state'> }>(
  dirs: Iterable<string>,
  open: (dir: string) => Promise<W | undefined>,
  pick: (run: Run) => boolean,
): Promise<{ run: Run; workspace: W } | undefined> {
  let best: { run: Run; workspace: W } | undefined;
  let failure: Error | undefined;
  for (const dir of new Set(dirs)) {
    try {
      const workspace = await open(dir);
      if (workspace === undefined) continue;
      for (const run of Object.values((await workspace.engine.state()).runs))
        if (pick(run) && (best === undefined || run.createdAt > best.run.createdAt))
          best = { run, workspace };
    } catch (error) {
      failure ??= error instanceof Error ? error : new Error(String(error));
    }
  }
  if (best === undefined && failure !== undefined) throw failure;
  return best;
}
