import type { RepositoryFacts } from '../../adapters/git/inspect.js';

/** A directory as a run will use it, read before any side effect. */
export type Target = Exclude<RepositoryFacts, { kind: 'file' }>;
