import type { MakerEngine } from '../engine/maker-engine.js';

export type { RunOutcome } from '../engine/maker-engine.js';

/**
 * What the surfaces (the CLI, the MCP server, the live view) do with a run's engine: start a run,
 * drive it, follow its events, read and save its state, answer its questions, close it. The rest of
 * the engine is its own.
 */
export type RunEngine = Pick<
  MakerEngine,
  | 'create'
  | 'run'
  | 'getRun'
  | 'state'
  | 'persist'
  | 'events'
  | 'close'
  | 'answer'
  | 'pendingQuestions'
>;
