import { escapeControls } from '../../core/text.js';
import { makeRedactor, type Redactor } from '../../core/errors.js';

/** What redaction needs: the configured keys and tokens (never saved). */
export interface Secrets {
  readonly secrets: readonly string[];
}

const redactors = new WeakMap<readonly string[], Redactor>();

/**
 * `text` as it may leave the run through git or GitHub (a commit message, the pull request's
 * title and body): with the configured keys, and keys of known formats, redacted, as the state
 * file has them. A key pasted into the idea, or echoed by a model into a title or summary, stays home.
 * Control characters but line feed and tab are written as their escapes (`\u001b`).
 */
export function outward(ctx: Secrets, text: string): string {
  // Control characters (a model's ESC sequences) shown as escapes: `git log` and a terminal
  // showing the pull request replay them otherwise.
  return escapeControls(redacted(ctx, text));
}

/**
 * `text` with the configured keys, and keys of known formats, redacted: as the state file holds a
 * person's words (the idea), which keep their own characters there (every surface escapes them).
 */
export function redacted(ctx: Secrets, text: string): string {
  let redact = redactors.get(ctx.secrets);
  if (redact === undefined) {
    redact = makeRedactor(ctx.secrets);
    redactors.set(ctx.secrets, redact);
  }
  return redact(text);
}
