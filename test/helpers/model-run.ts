import type { EngineEvent } from '../../src/engine/events.js';
import type { LanguageModel } from '../../src/ports/language-model.js';
import { engineFor, openWorkspace, runConfig } from '../../src/app/wiring/wiring.js';
import { WORKERS } from '../../src/app/workers/index.js';
import { listenTo } from './engine.js';
import { readSettings } from '../../src/app/settings.js';
import { workspaceSettings } from './settings.js';

export interface ModelRunOptions {
  readonly idea: string;
  /** The scripted model every role of the gemini worker asks. */
  readonly model: LanguageModel;
  /** Files read from the landed tree (each `''` when nothing landed or the file is missing). */
  readonly read: readonly string[];
  readonly maxDepth?: number;
  /** The run's overall check (`maker run --check`). */
  readonly check?: string;
  /** Stops the run at the first event it accepts; a new engine then resumes it, as after a kill. */
  readonly stopWhen?: ((event: EngineEvent) => boolean) | undefined;
}

/**
 * A run of `idea` on a scripted model in the git repository `dir`, as `maker run --worker gemini
 * --hitl auto` makes it (seed 1, no install): what it ended with, the saved run, every event, the
 * landed tree and the files asked for.
 */
export async function modelRun(dir: string, o: ModelRunOptions) {
  const workspace = await openWorkspace(dir, true, workspaceSettings({}));
  try {
    const config = runConfig({
      worker: 'gemini',
      hitl: 'auto',
      seed: 1,
      install: '',
      ...(o.maxDepth === undefined ? {} : { maxDepth: o.maxDepth }),
      defaultBranch: await workspace.currentBranch(),
    });
    const roles = await WORKERS.gemini.roles(config, workspace, readSettings({}), {
      model: o.model,
      editFormat: 'json',
    });
    const engineNow = () => engineFor(dir, workspace, roles, { secrets: [], env: {} });
    const engine = engineNow();
    const { events, stop, done } = listenTo(engine, o.stopWhen);
    const runId = await engine.create(
      o.idea,
      config,
      o.check === undefined ? {} : { check: o.check },
    );
    let outcome = await engine.run(runId, { signal: stop });
    const interrupted = outcome.status;
    if (o.stopWhen !== undefined) outcome = await engineNow().run(runId);
    await done();
    const run = await engineNow().getRun(runId);
    const landed = run.nodes[run.rootId]?.commit;
    const files: Record<string, string> = {};
    for (const path of o.read)
      files[path] =
        landed === undefined ? '' : ((await workspace.readFiles(landed, [path]))[0]?.content ?? '');
    return {
      interrupted,
      outcome,
      run,
      events,
      tree: landed === undefined ? undefined : await workspace.treeOf(landed),
      files,
    };
  } finally {
    await workspace.close();
  }
}
