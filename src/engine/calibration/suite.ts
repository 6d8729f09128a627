import { z } from 'zod';
import suiteJson from './suite.json' with { type: 'json' };

const filesSchema = z.record(z.string().min(1), z.string());

/**
 * One calibration subtask: what the worker is told (title, description, acceptance, the files it
 * may write), the repository it starts from, and what only MAKER sees: a hidden test (an ES
 * module run with node, sandboxed, on the candidate's tree), a reference solution and a plausible
 * wrong one (for simulated and scripted models).
 */
export const calibrationTaskSchema = z.object({
  id: z.string().regex(/^[a-z0-9-]+$/),
  title: z.string().min(1),
  description: z.string().min(1),
  acceptance: z.array(z.string()),
  files: z.array(z.string().min(1)).min(1),
  start: filesSchema,
  solution: filesSchema,
  wrong: filesSchema,
  test: z.string().min(1),
});
export type CalibrationTask = z.infer<typeof calibrationTaskSchema>;

const suiteSchema = z.object({
  $schemaVersion: z.literal(1),
  tasks: z.array(calibrationTaskSchema).min(1),
});

/** The built-in suite (`suite.json`, bundled into `dist/maker.js`). */
export const CALIBRATION_SUITE: readonly CalibrationTask[] = suiteSchema.parse(suiteJson).tasks;

/** Where a task's hidden test is placed in the candidate's tree, and the command that runs it. */
export const HIDDEN_TEST_PATH = '.maker-hidden/test.mjs';
export const HIDDEN_TEST_COMMAND = `node ${HIDDEN_TEST_PATH}`;
