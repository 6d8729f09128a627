import type { WorkerChoice, WorkerTask } from '../../ports/worker.js';
import type { JulesActivity } from './schemas.js';

/** The title that names a candidate slot's session, so a crashed run can find it again. */
export function sessionTitle(task: WorkerTask, slot: number): string {
  return `maker ${task.context.runId} n-${task.context.nodeId} cand-${slot}`;
}

/** The latest plan a session generated, as numbered steps. */
export function planText(activities: readonly JulesActivity[]): string | undefined {
  const plan = activities
    .map((a) => a.planGenerated?.plan)
    .filter(Boolean)
    .at(-1);
  const steps = plan?.steps ?? [];
  if (steps.length === 0) return undefined;
  return steps
    .map(
      (step, i) =>
        `${i + 1}. ${step.title ?? ''}${step.description ? ` — ${step.description}` : ''}`,
    )
    .join('\n');
}

/** The question that lets a person approve or veto a session's plan (`plan`: its steps, if known). */
export function planChoice(
  task: WorkerTask,
  slot: number,
  id: string,
  plan: string | undefined,
): WorkerChoice {
  return {
    id: 'plan',
    kind: 'veto',
    prompt: `Jules proposes a plan for "${task.context.task.title}" (candidate ${slot}, session ${id}). Let it carry the plan out?`,
    ...(plan === undefined ? {} : { detail: plan }),
    options: [
      { id: 'approve', label: 'Approve: let Jules carry out this plan' },
      { id: 'veto', label: 'Veto: discard this candidate' },
    ],
    auto: 'approve',
  };
}

export function prompt(task: WorkerTask): string {
  const { context } = task;
  const t = context.task;
  return [
    `Overall project: ${context.idea}`,
    ...(context.ancestors.length > 0 ? [`Part of: ${context.ancestors.join(' › ')}`] : []),
    `Task: ${t.title}`,
    t.description,
    ...(t.acceptance.length > 0 ? ['Done when:', ...t.acceptance.map((a) => `- ${a}`)] : []),
    ...(t.files.length > 0 ? [`Files: ${t.files.join(', ')}`, 'Touch only these files.'] : []),
    ...context.clarifications.map((c) => `Clarified: ${c.question} → ${c.answer}`),
    'Make exactly this change and nothing else. Do not open a pull request.',
  ].join('\n');
}
