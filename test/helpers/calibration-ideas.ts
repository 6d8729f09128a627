import type { CalibrationTask } from '../../src/engine/calibration/suite.js';
import { HIDDEN_TEST_PATH } from '../../src/engine/calibration/suite.js';
import type { ProductIdea } from '../../src/offline/product/types.js';

/**
 * The calibration suite's tasks as ideas the realistic fake model knows, so that `maker
 * calibrate` can sample it: each task is a one-leaf idea titled as the task (its prompt's "Task:"
 * line), whose one file is the reference solution as a template. A right sample writes it in one
 * of several forms (indented by 2 or 4, with or without one of two header comments): different
 * texts, one answer. Its subtle bug is the task's wrong solution; its export slip misspells the
 * name the task adds.
 */
export function calibrationIdeas(tasks: readonly CalibrationTask[]): ProductIdea[] {
  return tasks.map((task) => {
    const path = task.files[0] as string;
    const solution = task.solution[path] ?? '';
    const wrong = task.wrong[path] ?? '';
    const name = addedExport(solution, task.start[path] ?? '');
    return {
      name: task.id,
      idea: task.title,
      leaves: [
        {
          titles: [task.title],
          descriptions: [task.description],
          acceptance: [task.acceptance],
          files: [
            {
              path,
              headers: [`${task.title}.`, 'Written for the task above; no dependencies.'],
              blocks: [{ text: solution.trim() }],
            },
          ],
          dependsOn: [],
          check: `node --check ${path}`,
          exportSlip: [name, `${name}Fn`],
          bugs: [{ kind: 'edge-case', path, from: solution.trim(), to: wrong.trim() }],
        },
      ],
      hiddenTests: [{ path: HIDDEN_TEST_PATH, content: task.test }],
    };
  });
}

/** The name a task's solution exports that its start did not (else its first export). */
function addedExport(solution: string, start: string): string {
  const names = (text: string) =>
    [...text.matchAll(/export (?:async )?(?:function|const|class) (\w+)/g)].map(
      (m) => m[1] as string,
    );
  const before = new Set(names(start));
  const all = names(solution);
  const name = all.find((n) => !before.has(n)) ?? all[0];
  if (name === undefined) throw new Error('a calibration task whose solution exports nothing');
  return name;
}
