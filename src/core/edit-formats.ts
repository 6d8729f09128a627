// Apart from the worker, so help texts can name the formats without loading it.
/**
 * How the worker's answer carries files: `json`, each file a JSON string in a schema-enforced JSON
 * answer; `fenced`, each file a `File: <path>` line and a fenced block of plain text, then a
 * ```json summary block (see `core/fenced-edits.ts`). Measured against each other in
 * docs/BENCHMARKS.md ("Edit formats").
 */
export type EditFormat = 'json' | 'fenced';
export const EDIT_FORMATS: readonly EditFormat[] = ['json', 'fenced'];
/**
 * The edit format a worker uses unless told otherwise: JSON, which landed the same products as
 * fenced blocks for 2% fewer tokens on the simulated model, whose slip rates per format are
 * assumed equal (docs/BENCHMARKS.md, "Edit formats").
 */
export const DEFAULT_EDIT_FORMAT: EditFormat = 'json';
