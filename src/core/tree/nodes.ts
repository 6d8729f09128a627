import type { Subtask, TreeNode, VoteRecord } from './schema.js';

/** A fresh, undecided node for a subtask. */
export function newNode(
  id: string,
  parentId: string | null,
  depth: number,
  index: number,
  subtask: Subtask,
): TreeNode {
  return {
    id,
    parentId,
    depth,
    index,
    title: subtask.title,
    description: subtask.description,
    acceptance: [...subtask.acceptance],
    files: [...subtask.files],
    ...(subtask.shared === undefined || subtask.shared.length === 0
      ? {}
      : { shared: [...subtask.shared] }),
    ...(subtask.provides === undefined || subtask.provides.length === 0
      ? {}
      : { provides: [...subtask.provides] }),
    dependsOn: [...subtask.dependsOn],
    ...(subtask.check === undefined ? {} : { check: subtask.check }),
    status: 'pending',
    kind: 'undecided',
    children: [],
    clarifications: [],
    integrations: {},
    mergeHeads: [],
    cost: { modelCalls: 0, workerRuns: 0, tokens: 0 },
  };
}

/** Every vote a node holds: "is it minimal?", its split, its candidates, its merge integrations. */
export function voteRecords(n: TreeNode): VoteRecord[] {
  return [n.minimal, n.split, n.leaf, ...Object.values(n.integrations)].filter(
    (r): r is VoteRecord => r !== undefined,
  );
}
