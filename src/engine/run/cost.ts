import type { ModelResponse } from '../../core/red-flags/index.js';
import type { TreeNode } from '../../core/tree/schema.js';
import { billedTokens, type GenerateResult } from '../../ports/language-model.js';

/** What a model request was for, in a node's cost by role. */
export type CostRole = 'minimal' | 'split' | 'review' | 'ballot' | 'worker' | 'test' | 'probe';

/** Counts a model call of `role` (each request it made) and its tokens against the node, and passes the response on. */
export async function counted(
  n: TreeNode,
  call: Promise<ModelResponse & Omit<GenerateResult, 'text'>>,
  role: CostRole,
): Promise<ModelResponse> {
  const response = await call;
  addCost(n, role, response.requests ?? 1, billedTokens(response));
  return response;
}

/** Adds `calls` model requests and `tokens` of `role` to the node's cost. */
export function addCost(n: TreeNode, role: CostRole, calls: number, tokens: number): void {
  n.cost.modelCalls += calls;
  n.cost.tokens += tokens;
  const roles = (n.cost.roles ??= {});
  const mine = (roles[role] ??= { calls: 0, tokens: 0 });
  mine.calls += calls;
  mine.tokens += tokens;
}
