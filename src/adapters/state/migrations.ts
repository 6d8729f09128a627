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
};
