import type { ProductIdea } from '../types.js';
import { caseKit } from './case-kit.js';
import { csvToJson } from './csv-to-json.js';
import { exprEval } from './expr-eval.js';
import { inventory } from './inventory.js';
import { textStats } from './text-stats.js';
import { todoApi } from './todo-api.js';

/** The built-in ideas of `maker bench product`, by name. */
export const PRODUCT_IDEAS: readonly ProductIdea[] = [
  csvToJson,
  exprEval,
  textStats,
  todoApi,
  caseKit,
  inventory,
];

export { QUICK_IDEAS } from './names.js';
