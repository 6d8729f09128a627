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
