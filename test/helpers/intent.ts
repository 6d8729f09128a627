import { runConfig } from '../../src/app/wiring/wiring.js';
import type { StartIntent } from '../../src/core/tree/schema.js';

/** A start's recorded configuration: a simulated run without checks, answered automatically. */
export function intentConfig(): StartIntent['config'] {
  const config: Partial<ReturnType<typeof runConfig>> = runConfig({
    worker: 'sim',
    runChecks: false,
    hitl: 'auto',
    defaultBranch: '',
  });
  delete config.defaultBranch;
  return config as StartIntent['config'];
}
