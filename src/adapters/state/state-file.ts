import { join } from 'node:path';
import type { Redactor } from '../../core/errors.js';
import {
  STATE_SCHEMA_VERSION,
  stateFileSchema,
  type StateFile,
  type TreeNode,
} from '../../core/tree/schema.js';
import { STATE_MIGRATIONS } from './migrations.js';
import { VersionedJsonFile } from './versioned-json-file.js';

export const STATE_FILE_NAME = 'maker-state.json';
export const JOURNAL_FILE_NAME = 'maker-journal.jsonl';

/** The workspace's `maker-state.json`: validated on every load, older versions migrated. */
export function makerStateFile(
  dir: string,
  redact: Redactor = (text) => text,
): VersionedJsonFile<StateFile> {
  return new VersionedJsonFile<StateFile>({
    path: join(dir, STATE_FILE_NAME),
    schema: stateFileSchema,
    currentVersion: STATE_SCHEMA_VERSION,
    migrations: STATE_MIGRATIONS,
    empty: () => ({ $schemaVersion: STATE_SCHEMA_VERSION, runs: {} }),
    description: 'MAKER state',
    serialize: stateSerializer(redact),
  });
}

/**
 * Serialises the state, reusing the JSON of nodes that are `done`: a finished node never changes
 * again (the engine's invariant), so a save costs the size of the live part of the tree plus a copy
 * of the rest, not a fresh serialisation of every node. Keyed by object identity: a state loaded
 * anew starts with an empty cache. Everything written passes `redact` (once per node, as it is
 * serialised), so no configured key reaches the file, whatever field it arrived in.
 */
export function stateSerializer(redact: Redactor = (text) => text): (state: StateFile) => string {
  const cache = new WeakMap<TreeNode, string>();
  const nodeJson = (node: TreeNode): string => {
    if (node.status !== 'done') return redact(JSON.stringify(node));
    let json = cache.get(node);
    if (json === undefined) {
      json = redact(JSON.stringify(node));
      cache.set(node, json);
    }
    return json;
  };
  return (state) => {
    const runs = Object.entries(state.runs).map(([id, run]) => {
      const { nodes, ...rest } = run;
      const head = redact(JSON.stringify(rest));
      const body = Object.entries(nodes)
        .map(([nodeId, node]) => `${JSON.stringify(nodeId)}:${nodeJson(node)}`)
        .join(',');
      return `${JSON.stringify(id)}:${head.slice(0, -1)}${head === '{}' ? '' : ','}"nodes":{${body}}}`;
    });
    const ledger =
      state.ledger === undefined ? '' : `,"ledger":${redact(JSON.stringify(state.ledger))}`;
    return `{"$schemaVersion":${JSON.stringify(state.$schemaVersion)},"runs":{${runs.join(',')}}${ledger}}`;
  };
}
