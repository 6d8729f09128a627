import { samplingFor, type Sampling, type SamplingRole } from '../../core/sampling.js';
import type { RunConfig } from '../../core/tree/schema.js';

/**
 * What a run's requests of `role` are sent: as recorded in its configuration, else (a file written
 * before it was recorded, a simulated run) from the per-model table.
 */
export function samplingOf(config: RunConfig, role: SamplingRole): Sampling {
  return (
    config.sampling?.roles[role] ?? samplingFor(config.model, role, config.sampling?.overrides)
  );
}

/** A planner call's sampling fields for `role`. */
export function plannerSampling(
  ctx: { readonly run: { readonly config: RunConfig } },
  role: SamplingRole,
): { temperature: number; sampling: Sampling } {
  const sampling = samplingOf(ctx.run.config, role);
  return { temperature: sampling.temperature, sampling };
}
