import { withModelAccess } from './run-choices.js';

import { DOCTOR_SECTIONS, type doctorCommand } from './doctor.js';
import type { CliContext, InputOf } from '../define.js';

/** `maker doctor`, loaded when it runs (see doctor.ts for its options and help). */
export function run({ options: o }: InputOf<typeof doctorCommand>, cli: CliContext): number {
  const { io } = withModelAccess(cli, o.modelAccess);
  const results = DOCTOR_SECTIONS.map((s) => ({ section: s, result: s.check(io.env) }));
  if (o.json === true) {
    io.stdout(
      `${JSON.stringify(Object.fromEntries(results.map(({ section, result }) => [section.key, result.facts])))}\n`,
    );
    return 0;
  }
  io.stdout(
    `${results.map(({ section, result }) => [`${section.title}:`, ...result.lines.map((l) => `  ${l}`)].join('\n')).join('\n\n')}\n`,
  );
  return 0;
}
