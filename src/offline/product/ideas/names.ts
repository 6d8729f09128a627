/**
 * The names of `maker bench product`'s built-in ideas, for its help: without the ideas themselves
 * (their prompts and hidden tests), which only a run loads. index.ts checks they match.
 */
export const PRODUCT_IDEA_NAMES = [
  'csv-to-json',
  'expr-eval',
  'text-stats',
  'todo-api',
  'case-kit',
  'inventory',
] as const;

/** The ideas `--quick` runs. */
export const QUICK_IDEAS: readonly string[] = ['text-stats', 'expr-eval'];
