import { describe, expect, it } from 'vitest';
import { makeRedactor, redactSecrets } from '../../src/core/errors.js';

/** Key-shaped test values, made at run time so no key-like literal sits in the source. */
const GH_TOKEN = `ghp_${'0123456789'.repeat(3)}`;

describe('redactSecrets on free text from services', () => {
  it.each([
    [`token: ${GH_TOKEN}`, 'token: [redacted]'],
    ['GET /x?key=AIzaSyA0123456789abcdefghijklmnop', 'GET /x?key=[redacted]'],
    ['api_key=abc123def456', 'api_key=[redacted]'],
    ['Authorization: Bearer abcdef0123456789', 'Authorization: [redacted]'],
    ['"apiKey": "sk-live-abcdefghijklmnopqrstuvwxyz"', '"apiKey": "[redacted]"'],
  ])('redacts %j', (text, expected) => {
    expect(redactSecrets(text)).toBe(expected);
  });

  it.each([
    'fine-grained token: Repository permissions → Administration: Read and write',
    'the token: Contents and Pull requests must be writable',
    'a primary key: unique',
  ])('leaves words alone: %j', (text) => {
    expect(redactSecrets(text)).toBe(text);
  });
});

describe('credentials inside a URL', () => {
  // Tokens of no known format, as a remote URL embeds them (a GitLab token, a classic 40-hex one).
  const URLS = [
    ['https://oauth2:glpat-Zx9Qw8Er7Ty6Ui5Op4@gitlab.com/o/r.git', 'glpat-Zx9Qw8Er7Ty6Ui5Op4'],
    [`https://x-access-token:${'0a1b2c3d4e'.repeat(4)}@github.com/o/r.git`, '0a1b2c3d4e'.repeat(4)],
    [`HTTP://${'f00d'.repeat(10)}@127.0.0.1:8080/o/r.git`, 'f00d'.repeat(10)],
  ] as const;

  it.each(URLS)('keeps the user information of %j out of every redactor', (url, secret) => {
    const text = `its origin remote (${url}) is not a GitHub URL`;
    for (const out of [makeRedactor([])(text), redactSecrets(text)]) {
      expect(out).not.toContain(secret);
      expect(out).toMatch(/\/\/\[redacted\]@/);
    }
  });

  it('leaves URLs without user information, and ssh remotes, alone', () => {
    const text = 'https://github.com/o/r.git, git@github.com:o/r.git, ssh://git@host/o/r and a@b';
    expect(makeRedactor([])(text)).toBe(text);
    expect(redactSecrets(text)).toBe(text);
  });
});
