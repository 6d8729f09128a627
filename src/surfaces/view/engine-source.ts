import type { Question } from '../../core/tree/schema.js';
import type { RunEngine } from '../../app/run-engine.js';
import type { DiffOf } from './diffs.js';
import { logEntry } from './model.js';
import type { Answering } from './protocol.js';
import type { ViewListener, ViewSource } from './source.js';

export interface EngineSourceOptions {
  readonly dir: string;
  readonly engine: RunEngine;
  /** How this process answers (e.g. `MakerEngine.answer`, then whatever resumes the run). */
  readonly answer: (
    runId: string,
    questionId: string,
    answer: string,
  ) => Promise<{ question: Question; note: string }>;
  /** Whether this process drives the run now (its `driver`), and how it takes answers. */
  readonly answering: (runId: string) => Promise<Answering>;
  readonly diff?: DiffOf | undefined;
  /** How often to look again without an event (draws started, not yet settled). Default 1000. */
  readonly refreshMs?: number;
}

/**
 * A view inside the process that drives the run: changes come from the engine's event stream
 * (plus a slow refresh for work under way, which emits no event), the state is the engine's own,
 * and answers go to the engine, which hands them to the waiting run.
 */
export function engineSource(options: EngineSourceOptions): ViewSource {
  const stops = new Set<() => void>();
  return {
    dir: options.dir,
    diff: options.diff,
    state: () => options.engine.state(),
    watch(listener: ViewListener) {
      const controller = new AbortController();
      const timer = setInterval(() => listener.changed(), options.refreshMs ?? 1000);
      void (async () => {
        for await (const event of options.engine.events(controller.signal)) {
          listener.changed(event.runId);
          const entry = logEntry(event);
          if (entry !== undefined) listener.log(event.runId, entry);
        }
      })().catch(() => undefined);
      const stop = () => {
        clearInterval(timer);
        controller.abort();
        stops.delete(stop);
      };
      stops.add(stop);
      return stop;
    },
    answering: options.answering,
    answer: options.answer,
    close: () => {
      for (const stop of [...stops]) stop();
      return Promise.resolve();
    },
  };
}
