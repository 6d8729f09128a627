import { MakerError } from '../../core/errors.js';
import type { TreeNode } from '../../core/tree/schema.js';
import { describeCheckEnvironment } from '../../core/checks.js';
import type { NodeContext, RepoContext } from '../../ports/planner.js';
import type { RunContext } from '../run/run-context.js';
import { repoContextBuilder } from './repo-context.js';
import type { DependencyChange, RepoContextRequest } from './repo-selection.js';

/** What a subtask set out to do, in one line: its title, then what it must achieve. */
export function intentLine(t: Pick<TreeNode, 'title' | 'description' | 'acceptance'>): string {
  const done = t.acceptance.length > 0 ? t.acceptance.join('; ') : t.description;
  return `"${t.title}": ${done.replace(/\s+/g, ' ').slice(0, 400)}`;
}

/** The run's node `id`; throws when the state file has none. */
export function node(ctx: RunContext, id: string): TreeNode {
  const found = ctx.run.nodes[id];
  if (found === undefined)
    throw new MakerError('state-node-missing', `Run ${ctx.run.id} has no node ${id}.`);
  return found;
}

/**
 * The paths a leaf's candidates may touch: its own `files` and the `shared` files it may add to,
 * else its nearest ancestor's (a subtask inherits its parent's bounds). Empty only for a root
 * solved whole: the repository.
 */
export function scopeOf(ctx: Pick<RunContext, 'run'>, n: TreeNode): readonly string[] {
  for (
    let p: TreeNode | undefined = n;
    p !== undefined;
    p = p.parentId === null ? undefined : ctx.run.nodes[p.parentId]
  )
    if (p.files.length > 0) return [...new Set([...p.files, ...(p.shared ?? [])])];
  return [];
}

/** The node as the planner and workers see it: its task, its ancestry and every clarification above it. */
export function nodeContext(ctx: RunContext, n: TreeNode): NodeContext {
  const ancestors: string[] = [];
  const clarifications: { question: string; answer: string }[] = [];
  for (
    let p = n.parentId === null ? undefined : ctx.run.nodes[n.parentId];
    p !== undefined;
    p = p.parentId === null ? undefined : ctx.run.nodes[p.parentId]
  ) {
    ancestors.unshift(p.title);
    clarifications.unshift(...p.clarifications);
  }
  clarifications.push(...n.clarifications);
  return {
    runId: ctx.run.id,
    nodeId: n.id,
    idea: ctx.run.idea,
    depth: n.depth,
    maxDepth: ctx.run.config.maxDepth,
    task: {
      title: n.title,
      description: n.description,
      acceptance: n.acceptance,
      files: n.files,
      ...(n.shared === undefined ? {} : { shared: n.shared }),
      dependsOn: n.dependsOn,
      ...(n.check === undefined ? {} : { check: n.check }),
    },
    ancestors,
    scope: scopeOf(ctx, n),
    siblings: (n.parentId === null ? [] : (ctx.run.nodes[n.parentId]?.children ?? []))
      .map((id) => ctx.run.nodes[id])
      .filter((s): s is TreeNode => s !== undefined && s.id !== n.id)
      .map((s) => ({
        title: s.title,
        promises: (s.provides !== undefined && s.provides.length > 0
          ? `provides ${s.provides.join('; ')}`
          : s.acceptance.length > 0
            ? s.acceptance.join('; ')
            : s.description
        ).slice(0, 600),
      })),
    clarifications,
    ...(ctx.run.config.runChecks ? { checks: describeCheckEnvironment(ctx.checkEnvironment) } : {}),
    ...(n.baseCommit === undefined
      ? {}
      : {
          repository: repositoryView(ctx, n, {
            base: n.baseCommit,
            scope: scopeOf(ctx, n),
            dependencies: dependenciesOf(ctx, n),
            mentions: [n.title, n.description, ...n.acceptance].join('\n'),
          }),
        }),
  };
}

/**
 * A node's lazy view of the repository (see {@link NodeContext.repository}): built on the first
 * call for a budget, and reported then as a `context-built` event with its size.
 */
export function repositoryView(
  ctx: Pick<RunContext, 'workspace' | 'emit' | 'secrets'>,
  n: Pick<TreeNode, 'id'>,
  request: RepoContextRequest,
): (budget: number, options?: { readonly mapOnly?: boolean }) => Promise<RepoContext> {
  const builder = repoContextBuilder(ctx.workspace);
  // Made on first use: a node waiting for a paid slot holds no table of its own.
  let made: Map<string, Promise<RepoContext>> | undefined;
  return (budget, options) => {
    const mapOnly = options?.mapOnly === true;
    const key = `${budget}:${mapOnly}`;
    made ??= new Map();
    let view = made.get(key);
    if (view === undefined) {
      const asked = mapOnly ? { ...request, mapOnly } : request;
      view = builder.build(asked, budget, ctx.secrets).then((built) => {
        ctx.emit({
          type: 'context-built',
          nodeId: n.id,
          chars: built.chars,
          budget: built.budget,
          omitted: built.omitted.length,
        });
        return built;
      });
      made.set(key, view);
    }
    return view;
  };
}

/**
 * The work a node builds on: each sibling it depends on, and each sibling its ancestors depend
 * on (nearest first), as the commits before and after that sibling's subtree.
 */
export function dependenciesOf(ctx: Pick<RunContext, 'run'>, n: TreeNode): DependencyChange[] {
  const out: DependencyChange[] = [];
  for (
    let p: TreeNode | undefined = n;
    p !== undefined && p.parentId !== null;
    p = ctx.run.nodes[p.parentId]
  ) {
    const parent = ctx.run.nodes[p.parentId];
    for (const index of p.dependsOn) {
      const sibling = ctx.run.nodes[parent?.children[index] ?? ''];
      if (sibling?.baseCommit !== undefined && sibling.commit !== undefined)
        out.push({ title: sibling.title, from: sibling.baseCommit, to: sibling.commit });
    }
  }
  return out;
}
