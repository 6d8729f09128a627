import { newNode } from '../../src/core/tree/nodes.js';
import type { Draw, Run, TreeNode, VoteRecord } from '../../src/core/tree/schema.js';
import { baseConfig } from './engine.js';

/** A node with the given fields over a fresh one. */
export function node(id: string, fields: Partial<TreeNode> = {}): TreeNode {
  const parentId =
    id === 'root' ? null : id.includes('-') ? id.slice(0, id.lastIndexOf('-')) : 'root';
  return {
    ...newNode(id, parentId, id === 'root' ? 0 : id.split('-').length, 0, {
      title: `Task ${id}`,
      description: `Do ${id}.`,
      acceptance: [],
      files: [],
      dependsOn: [],
    }),
    ...fields,
  };
}

export const valid = (slot: number, key: string): Draw => ({
  slot,
  status: 'valid',
  key,
  flags: [],
});
export const flagged = (slot: number, ...rules: string[]): Draw => ({
  slot,
  status: 'flagged',
  flags: rules.map((rule) => ({ rule, message: `${rule} broke` })),
});
export const started = (slot: number): Draw => ({ slot, status: 'started', flags: [] });

export function record(draws: Draw[], fields: Partial<VoteRecord> = {}): VoteRecord {
  return { attempt: 0, draws, ballots: [], ...fields };
}

/** A run holding `nodes` (root first), children linked from each node's parent. */
export function runOf(nodes: TreeNode[], fields: Partial<Run> = {}): Run {
  const byId = Object.fromEntries(nodes.map((n) => [n.id, { ...n, children: [...n.children] }]));
  for (const n of Object.values(byId))
    if (
      n.parentId !== null &&
      byId[n.parentId] !== undefined &&
      !byId[n.parentId]!.children.includes(n.id)
    )
      byId[n.parentId]!.children.push(n.id);
  return {
    id: 'r-test',
    idea: 'a test idea',
    createdAt: '2026-01-01T00:00:00.000Z',
    status: 'running',
    config: baseConfig,
    baseCommit: 'a'.repeat(40),
    rootId: 'root',
    nodes: byId,
    questions: [],
    eventSeq: 0,
    ...fields,
  };
}

/** A balanced tree of `count` nodes (root included), `fanout` children each, all done. */
export function bigRun(count: number, fanout = 8): Run {
  const nodes: TreeNode[] = [node('root', { status: 'done', kind: 'branch' })];
  const queue = ['root'];
  while (nodes.length < count) {
    const parent = queue.shift() as string;
    for (let i = 0; i < fanout && nodes.length < count; i++) {
      const id = parent === 'root' ? String(i) : `${parent}-${i}`;
      nodes.push(
        node(id, {
          status: 'done',
          kind: 'leaf',
          leaf: record([valid(0, 'k1'), valid(1, 'k1'), valid(2, 'k1')], {
            outcome: {
              status: 'decided',
              key: 'k1',
              votes: 3,
              runnerUpVotes: 0,
              draws: 3,
              flagged: 0,
            },
          }),
        }),
      );
      queue.push(id);
    }
  }
  return runOf(nodes, { status: 'done' });
}
