import type { Subtask } from '../tree/schema.js';

/**
 * A decomposition as judges, reviewers and people see it: everything its vote key holds (title,
 * order, description, acceptance, files, check), so two different votes never look alike.
 */
export function renderSplit(split: { readonly subtasks: readonly Subtask[] }): string {
  return split.subtasks
    .map((s, i) => {
      const lines = [
        `${i + 1}. ${s.title}${s.dependsOn.length > 0 ? ` (after ${s.dependsOn.map((d) => d + 1).join(', ')})` : ''}`,
        `   ${s.description}`,
      ];
      if (s.acceptance.length > 0) lines.push(`   done when: ${s.acceptance.join('; ')}`);
      if (s.files.length > 0) lines.push(`   files: ${s.files.join(', ')}`);
      if (s.provides !== undefined && s.provides.length > 0)
        lines.push(`   provides: ${s.provides.join('; ')}`);
      if (s.shared !== undefined && s.shared.length > 0)
        lines.push(`   shared, adds to: ${s.shared.join(', ')}`);
      if (s.check !== undefined) lines.push(`   check: ${s.check}`);
      return lines.join('\n');
    })
    .join('\n');
}
