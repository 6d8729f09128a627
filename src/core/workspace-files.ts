/**
 * The files MAKER keeps at the top of a repository it works in: facts of its on-disk format, read
 * by every layer (the state store writes them; `maker status`, the MCP server's confinement and
 * the live view look for them).
 */

/** The runs' state: a snapshot, followed by {@link STATE_LOG_FILE_NAME}. */
export const STATE_FILE_NAME = 'maker-state.json';
/** What changed since the snapshot, appended one change at a time. */
export const STATE_LOG_FILE_NAME = 'maker-state.json.log';
/** The runs' events, one JSON line each, for people and tools to follow. */
export const JOURNAL_FILE_NAME = 'maker-journal.jsonl';
/** The calibration a workspace keeps beside its state, for `maker run --confidence auto`. */
export const CALIBRATION_FILE_NAME = 'maker-calibration.json';
