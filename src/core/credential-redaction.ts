import {
  OUTPUT_FORMATS,
  PROMPT_FORMATS,
  type CredentialFormat,
  type CredentialMatch,
} from './credential-formats.js';
import { credentialFindings } from './credential-scan.js';

/**
 * The one redactor for what a check or an install prints, before any of it is kept (the state,
 * the journal, prompts, the view, a pull request): the person's own secrets matched by value, in
 * their common encodings; private keys (whole blocks), AWS keys and the other formats of
 * `credential-formats.ts`; and secretlint's recommended preset, the rule set candidates are
 * scanned with. What it finds becomes `[REDACTED:<rule>]` (`[REDACTED:$NAME]` for the value of
 * the environment variable NAME). Pure: it is given the secret values; it reads nothing.
 */

/** A secret known by value: an environment variable's, or a configured key's. */
export interface NamedSecret {
  /** The variable it came from (`GITHUB_TOKEN`), or what it is. */
  readonly name: string;
  readonly value: string;
}

/** Values shorter than this are not matched: they would redact ordinary words and numbers. */
export const MIN_SECRET_CHARS = 8;

/**
 * Environment variable names that hold secrets: gemini-cli's environment sanitisation list
 * (`environmentSanitization.ts`: TOKEN SECRET PASSWORD PASSWD KEY AUTH CREDENTIAL CREDS PRIVATE),
 * which MAKER's own keys (GEMINI_API_KEY, JULES_API_KEY, GITHUB_TOKEN, GH_TOKEN…) all match.
 */
const SECRET_NAME = /TOKEN|SECRET|PASSWORD|PASSWD|KEY|AUTH|CREDENTIAL|CREDS|PRIVATE/i;
/**
 * Names that match but hold none: what npm copies from package.json into a script's environment
 * (`npm_package_keywords_0`, `npm_lifecycle_script`), public words a redaction would only blur.
 */
const PUBLIC_NAME = /^npm_(?:package|lifecycle)_/i;

/** Whether an environment variable's name says its value is a secret. */
export function secretName(name: string): boolean {
  return SECRET_NAME.test(name) && !PUBLIC_NAME.test(name);
}

/**
 * The secrets of an environment: the value of every variable whose name says it holds one, long
 * enough to match ({@link MIN_SECRET_CHARS}); a multi-line value's lines too, each on its own.
 */
export function environmentSecrets(
  env: Readonly<Record<string, string | undefined>>,
): NamedSecret[] {
  const out: NamedSecret[] = [];
  for (const [name, raw] of Object.entries(env)) {
    const value = raw?.trim() ?? '';
    if (!secretName(name) || value.length < MIN_SECRET_CHARS) continue;
    out.push({ name, value });
    if (value.includes('\n'))
      for (const line of value.split(/\r?\n/))
        if (line.trim().length >= MIN_SECRET_CHARS) out.push({ name, value: line.trim() });
  }
  return out;
}

/**
 * The forms a value is printed in: itself; its Base64 (and base64url) at each of the three byte
 * alignments it can sit at in a longer encoded text (only the characters that depend on its bytes
 * alone); URL-escaped; JSON-escaped (with and without `\/`). As GitHub Actions masks secrets.
 */
export function secretForms(value: string): string[] {
  const forms = new Set([value]);
  const bytes = Buffer.from(value, 'utf8');
  for (const shift of [0, 1, 2]) {
    const part = bytes.subarray(shift);
    const whole = part.subarray(0, part.length - (part.length % 3));
    if (whole.length === 0) continue;
    forms.add(whole.toString('base64'));
    forms.add(whole.toString('base64url'));
  }
  forms.add(encodeURIComponent(value));
  const json = JSON.stringify(value).slice(1, -1);
  forms.add(json);
  forms.add(json.replaceAll('/', '\\/'));
  return [...forms].filter((f) => f.length >= MIN_SECRET_CHARS);
}

const placeholder = (rule: string) => `[REDACTED:${rule}]`;

/** `text` with each of `matches` (overlapping ones merged, the earliest's rule kept) replaced. */
function replaceMatches(text: string, matches: readonly CredentialMatch[]): string {
  if (matches.length === 0) return text;
  const sorted = [...matches].sort((a, b) => a.start - b.start || b.end - a.end);
  const merged: CredentialMatch[] = [];
  for (const m of sorted) {
    const last = merged[merged.length - 1];
    if (last !== undefined && m.start < last.end)
      merged[merged.length - 1] = { ...last, end: Math.max(last.end, m.end) };
    else merged.push(m);
  }
  let out = '';
  let at = 0;
  for (const m of merged) {
    out += text.slice(at, m.start) + placeholder(m.rule);
    at = m.end;
  }
  return out + text.slice(at);
}

/** A regular expression's text matching `literal` exactly. */
const escapeRegExp = (literal: string) => literal.replace(/[.*+?^${}()|[\]\\/-]/g, '\\$&');

export class OutputRedactor {
  readonly #raw: readonly NamedSecret[];
  /** Every form of every value, longest first, as one alternation; undefined with no values. */
  readonly #forms: RegExp | undefined;
  readonly #nameOf = new Map<string, string>();

  /** `secrets`: the person's and MAKER's, by value (shorter than {@link MIN_SECRET_CHARS}: ignored). */
  constructor(secrets: readonly NamedSecret[]) {
    this.#raw = secrets.filter((s) => s.value.length >= MIN_SECRET_CHARS);
    for (const s of this.#raw)
      for (const form of secretForms(s.value))
        if (!this.#nameOf.has(form)) this.#nameOf.set(form, s.name);
    const forms = [...this.#nameOf.keys()].sort((a, b) => b.length - a.length);
    this.#forms =
      forms.length === 0 ? undefined : new RegExp(forms.map(escapeRegExp).join('|'), 'g');
  }

  /**
   * The secret values (in every form) and `formats`: synchronous. A text that begins with the end
   * of a value (a tail cut through it) has that part redacted too.
   */
  known(text: string, formats: readonly CredentialFormat[] = OUTPUT_FORMATS): string {
    let out = text;
    if (this.#forms !== undefined)
      out = out.replace(this.#forms, (form) => placeholder(`$${this.#nameOf.get(form) ?? ''}`));
    for (const s of this.#raw)
      for (let n = s.value.length - 1; n >= MIN_SECRET_CHARS; n--)
        if (out.startsWith(s.value.slice(-n))) {
          out = placeholder(`$${s.name}`) + out.slice(n);
          break;
        }
    return replaceMatches(
      out,
      formats.flatMap((f) => [...f.find(out)]),
    );
  }

  /**
   * For a prompt, at the boundary to a model: the secret values, and only the formats the
   * repository view already hides (`PROMPT_FORMATS`), so a file shown to a model loses no more.
   */
  prompt(text: string): string {
    return this.known(text, PROMPT_FORMATS);
  }

  /** {@link known}, then secretlint's recommended preset: for what a check or an install printed. */
  async redact(text: string): Promise<string> {
    const known = this.known(text);
    return replaceMatches(known, await credentialFindings(known));
  }
}

/**
 * The redaction of what checks and installs print, for the person's secrets (`environmentSecrets`)
 * and MAKER's configured keys. `keys` may grow (a run's, given a GitHub token once it is read): the
 * redactor is made again when its length changed.
 */
export function outputRedactor(
  environment: readonly NamedSecret[],
  keys: readonly string[] = [],
): (text: string) => Promise<string> {
  let taken = -1;
  let redactor: OutputRedactor | undefined;
  return (text) => {
    if (redactor === undefined || keys.length !== taken) {
      taken = keys.length;
      redactor = new OutputRedactor([
        ...environment,
        ...keys.map((value) => ({ name: 'MAKER_KEY', value })),
      ]);
    }
    return redactor.redact(text);
  };
}
