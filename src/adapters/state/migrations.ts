import type { Migration } from './versioned-json-file.js';

type Json = Record<string, unknown>;
const isRecord = (v: unknown): v is Json =>
  typeof v === 'object' && v !== null && !Array.isArray(v);

/**
 * `maker-state.json` migrations: `STATE_MIGRATIONS[v]` upgrades version v to v + 1. Each is pure,
 * total over what that version allowed, and kept forever (historical fixtures must keep loading).
 */
export const STATE_MIGRATIONS: Readonly<Record<number, Migration>> = {
  /** 1 → 2: the per-node `cost.usd`, never written, is dropped (spend is derived from tokens). */
  1: (document) => {
    const runs = isRecord(document['runs']) ? document['runs'] : {};
    for (const run of Object.values(runs)) {
      if (!isRecord(run) || !isRecord(run['nodes'])) continue;
      for (const node of Object.values(run['nodes']))
        if (isRecord(node) && isRecord(node['cost'])) delete node['cost']['usd'];
    }
    return document;
  },
  /**
   * 2 → 3: a run's Jules settings (`config.jules`) become its worker kind's options
   * (`config.workerOptions`), which core's schema does not name: the kind's module checks them. The
   * same for a start being made (`starting.config`).
   */
  2: (document) => {
    const runs = isRecord(document['runs']) ? Object.values(document['runs']) : [];
    const starting = document['starting'];
    for (const holder of [...runs, starting]) {
      if (!isRecord(holder) || !isRecord(holder['config'])) continue;
      const { jules, ...config } = holder['config'];
      // v2 read a missing planReview as false: kept so, as the kind's module reads it.
      holder['config'] =
        jules === undefined
          ? config
          : { ...config, workerOptions: isRecord(jules) ? { planReview: false, ...jules } : jules };
    }
    return document;
  },
};
