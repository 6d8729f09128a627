/**
 * Credentials by their formats, as named rules: where each occurs in a text. Pure functions, no
 * state; the output redactor (`credential-redaction.ts`) replaces what they find, and the candidate
 * rules (`candidate-policy.ts`) flag a written file that adds one.
 */

/** Where a rule found a credential: `[start, end)` in the text, and the rule's name. */
export interface CredentialMatch {
  readonly rule: string;
  readonly start: number;
  readonly end: number;
}

/** A named rule: every match in a text. */
export interface CredentialFormat {
  readonly rule: string;
  find(text: string): Iterable<CredentialMatch>;
}

function pattern(rule: string, re: RegExp): CredentialFormat {
  return {
    rule,
    *find(text) {
      for (const m of text.matchAll(re)) {
        // The first group that took part, else the whole match: what is redacted.
        const found = m.slice(1).find((g) => g !== undefined) ?? m[0];
        const start = m.index + m[0].indexOf(found);
        if (found !== '') yield { rule, start, end: start + found.length };
      }
    },
  };
}

const PEM_LABEL = '[A-Z0-9 ]*PRIVATE KEY(?: BLOCK)?';
/** A private key's base64 body: lines of base64 (and an encrypted key's header lines). */
const PEM_BODY_LINE = String.raw`[A-Za-z0-9+/=]+[ \t]*\r?\n|[A-Za-z-]+: [^\n]*\r?\n|[ \t]*\r?\n`;

/**
 * A private key, whole: a `-----BEGIN … PRIVATE KEY-----` block to its END line (or to the end of
 * the text, a key cut off), and the body lines before an END line whose BEGIN was cut off (a
 * text's tail).
 */
export const PRIVATE_KEY: CredentialFormat = {
  rule: 'private-key',
  *find(text) {
    const whole = new RegExp(
      `-----BEGIN ${PEM_LABEL}-----[\\s\\S]*?(?:-----END ${PEM_LABEL}-----|$)`,
      'g',
    );
    const orphanEnd = new RegExp(`(?:${PEM_BODY_LINE})*-----END ${PEM_LABEL}-----`, 'g');
    // An END line without its BEGIN is looked for only where there is an END line at all.
    for (const re of text.includes('-----END ') ? [whole, orphanEnd] : [whole])
      for (const m of text.matchAll(re))
        yield { rule: 'private-key', start: m.index, end: m.index + m[0].length };
  },
};

/**
 * The middle of a long private key, neither END nor BEGIN in sight: four or more lines of
 * PEM-width base64, with the cut line before them (at the start of the text) and the short line
 * after them. Broad (other base64 fits too): for what a check printed, not for file contents.
 */
export const PRIVATE_KEY_BODY = pattern(
  'private-key',
  /(?:^[A-Za-z0-9+/]*={0,2}\r?\n)?(?<=^|\n)(?:[A-Za-z0-9+/]{60,76}={0,2}(?:\r?\n|$)){4,}[A-Za-z0-9+/]*={0,2}/g,
);

/** AWS access key ids (long-term AKIA, temporary ASIA and the rarer prefixes, as gitleaks lists them). */
export const AWS_ACCESS_KEY_ID = pattern(
  'aws-access-key-id',
  /(?<![A-Za-z0-9])(?:A3T[A-Z0-9]|AKIA|ASIA|ABIA|ACCA)[A-Z0-9]{16}(?![A-Za-z0-9])/g,
);

/** A 40-character run of AWS secret-key characters, standing alone (no longer base64 around it). */
const FORTY = /(?<![A-Za-z0-9/+])[A-Za-z0-9/+]{40}(?![A-Za-z0-9/+=])/g;
/** A keyword that makes a 40-character value an AWS secret (gitleaks keys its rule on these). */
const AWS_KEYWORD = /aws|secret/i;
/** The end of an assignment: `=`, `:` or `=>`, then an optional quote. */
const ASSIGNED = /(?:[:=]|=>)\s*["'`]?$/;

/** Shannon entropy of `value`'s characters, in bits per character. */
export function entropy(value: string): number {
  const counts = new Map<string, number>();
  for (const c of value) counts.set(c, (counts.get(c) ?? 0) + 1);
  let bits = 0;
  for (const n of counts.values()) bits -= (n / value.length) * Math.log2(n / value.length);
  return bits;
}

/**
 * The bare AWS secret access key (40 characters of base64), where the context says it is one:
 * `aws` or `secret` earlier on its line (gitleaks' keywords), or assigned (`=`, `:`) as a value of
 * high entropy (4 bits a character or more: a random key almost always, a hex digest never). Never
 * a git object id or other hex digest, and always with upper- and lower-case letters.
 */
export const AWS_SECRET_ACCESS_KEY: CredentialFormat = {
  rule: 'aws-secret-access-key',
  *find(text) {
    for (const m of text.matchAll(FORTY)) {
      const value = m[0];
      if (/^[0-9a-f]+$/i.test(value) || !/[A-Z]/.test(value) || !/[a-z]/.test(value)) continue;
      const lineStart = text.lastIndexOf('\n', m.index - 1) + 1;
      const before = text.slice(Math.max(lineStart, m.index - 80), m.index);
      const keyword = AWS_KEYWORD.test(before);
      const assigned = ASSIGNED.test(before) && /\d/.test(value) && entropy(value) >= 4;
      if (keyword || assigned)
        yield { rule: 'aws-secret-access-key', start: m.index, end: m.index + value.length };
    }
  },
};

const NARROW: readonly CredentialFormat[] = [
  PRIVATE_KEY,
  AWS_ACCESS_KEY_ID,
  pattern('github-token', /gh[pousr]_[0-9A-Za-z]{20,}|github_pat_[0-9A-Za-z_]{20,}/g),
  pattern('google-api-key', /AIza[0-9A-Za-z_-]{20,}/g),
  pattern('slack-token', /xox[baprs]-[0-9A-Za-z-]{10,}/g),
  // The user information of an http(s) URL: a token alone, as remotes embed one, or a pair.
  pattern('url-credentials', /(?<=[Hh][Tt][Tt][Pp][Ss]?:\/\/)([^\s/?#@"'<>\\]+)@/g),
];

/**
 * The formats redacted from every prompt: those the repository view already hides from models
 * (`modelTextRedactor`), so a file a model is shown loses nothing more.
 */
export const PROMPT_FORMATS: readonly CredentialFormat[] = NARROW;

/**
 * The formats redacted from what checks and installs print, besides secretlint's preset: the
 * prompt's, and broader ones (a private key's middle, the bare AWS secret key, JWTs, the password
 * in any URL).
 */
export const OUTPUT_FORMATS: readonly CredentialFormat[] = [
  ...NARROW,
  pattern(
    'url-credentials',
    /(?<=[A-Za-z][A-Za-z0-9+.-]*:\/\/[^\s/?#@:"'<>\\]*:)([^\s/?#@"'<>\\]+)@/g,
  ),
  PRIVATE_KEY_BODY,
  AWS_SECRET_ACCESS_KEY,
  pattern('jwt', /eyJ[A-Za-z0-9_-]{8,}\.eyJ[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{8,}/g),
];
