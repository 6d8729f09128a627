import type { RunConfig } from '../../src/core/tree/schema.js';

/** A medium-confidence sim run that answers its own questions. */
export const baseConfig: RunConfig = {
  worker: 'sim',
  planner: 'sim',
  k: 2,
  confidence: 'medium',
  maxDepth: 3,
  maxNodes: 60,
  maxCandidates: 8,
  maxBallots: 10,
  maxFlagRate: 0.6,
  maxChangedLines: 400,
  concurrency: 4,
  seed: 7,
  hitl: 'auto',
  runChecks: false,
  allow: { executables: [], symlinks: [], workflows: false },
  maxFileBytes: 1_000_000,
  defaultBranch: 'main',
};
