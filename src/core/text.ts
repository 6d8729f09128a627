/**
 * Sentences joined by one space, each ending in exactly one terminal mark: a part that already ends
 * in `.`, `!` or `?` (text from an API, a person or an error) keeps its own; others get a period.
 * Empty parts are skipped. Messages built from other messages join here, never with a literal `. `.
 */
export function sentences(...parts: readonly (string | undefined)[]): string {
  return parts
    .map((part) => (part ?? '').trim())
    .filter((part) => part !== '')
    .map((part) => (/[.!?…]["')\]]?$/.test(part) ? part : `${part}.`))
    .join(' ');
}

/** `text` without its terminal mark, to go on inside a sentence (`failed: <reason>, so …`). */
export function clause(text: string): string {
  return text.trim().replace(/[.!?…]+$/, '');
}

/**
 * Control characters other than line feed and tab: C0, DEL and C1. Written to a terminal, they move
 * the cursor, recolour, retitle or clear it (ESC, CSI), or overwrite a line (a carriage return).
 */
// eslint-disable-next-line no-control-regex
const CONTROLS = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f]/gu;

/**
 * `text` with every control character but line feed and tab shown as its escape (`\u001b`), so that
 * text a model, a service or a file wrote is seen as written and cannot act on the terminal.
 */
export function escapeControls(text: string): string {
  return text.replace(CONTROLS, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`);
}
