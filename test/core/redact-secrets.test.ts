import { describe, expect, it } from 'vitest';
import { redactSecrets } from '../../src/core/errors.js';

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
