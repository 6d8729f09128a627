import { generateKeyPairSync } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import {
  environmentSecrets,
  OutputRedactor,
  outputRedactor,
  secretForms,
} from '../../src/core/credential-redaction.js';
import { runCheck } from '../../src/engine/checks/checks.js';
import type { Workspace } from '../../src/ports/workspace.js';

/**
 * The output redactor, rule by rule and encoding by encoding, and the one place it is applied: a
 * check's result as the engine receives it, redacted before its tail is cut.
 */
// Assembled at run time, so this file holds none of them whole.
const VALUE = ['Zq8', 'deploy', '/value+', 'x7"k\\9'].join('-'); // URL- and JSON-special characters
const GH = ['ghp', '_', 'a1B2'.repeat(9)].join('');
const KEY_ID = ['AKIA', 'Y34FZKBOKMUTVV7A'].join('');
const AWS_SECRET = ['Zk3qW9vT2xR8bN5mL1pJ', '7hC4dF6gA0sE2yU8iO3w'].join('');
const GIT_HASH = '0123456789abcdef0123456789abcdef01234567';
const rsa = generateKeyPairSync('rsa', { modulusLength: 2048 })
  .privateKey.export({ type: 'pkcs1', format: 'pem' })
  .toString();
const bodyLines = rsa.split('\n').filter((l) => l !== '' && !l.startsWith('-----'));

const redactor = new OutputRedactor(environmentSecrets({ DEPLOY_TOKEN: VALUE, PATH: '/usr/bin' }));

describe('the secret values of the environment', () => {
  it('are the values of variables whose names say so, 8 characters or more, npm’s own excepted', () => {
    expect(
      environmentSecrets({
        GITHUB_TOKEN: 'gho_abcdefgh12',
        MY_PASSWD: 'hunter2hunter2',
        DB_CREDS: 'user:pass-word',
        SIGNING_PRIVATE: 'k'.repeat(12),
        API_AUTH: 'Bearer-xyz-123',
        OWN_SECRET: 'short',
        PATH: '/usr/local/bin:/usr/bin',
        HOME: '/home/person',
        npm_package_keywords_0: 'gemini-cli-extension',
        MULTI_KEY: 'first-line-of-it\nsecond-line-here',
      }),
    ).toEqual([
      { name: 'GITHUB_TOKEN', value: 'gho_abcdefgh12' },
      { name: 'MY_PASSWD', value: 'hunter2hunter2' },
      { name: 'DB_CREDS', value: 'user:pass-word' },
      { name: 'SIGNING_PRIVATE', value: 'k'.repeat(12) },
      { name: 'API_AUTH', value: 'Bearer-xyz-123' },
      { name: 'MULTI_KEY', value: 'first-line-of-it\nsecond-line-here' },
      { name: 'MULTI_KEY', value: 'first-line-of-it' },
      { name: 'MULTI_KEY', value: 'second-line-here' },
    ]);
  });
});

describe('a value in each of its encodings', () => {
  const json = JSON.stringify(VALUE).slice(1, -1);
  it.each<[string, string]>([
    ['as it is', `token: ${VALUE}.`],
    ['URL-escaped', `GET /x?t=${encodeURIComponent(VALUE)}&y=1`],
    ['JSON-escaped', `{"t":"${json}"}`],
    ['JSON-escaped with \\/', `{"t":"${json.replaceAll('/', '\\/')}"}`],
    ...[0, 1, 2].map((pad): [string, string] => [
      `in Base64, ${pad} bytes in`,
      `auth: ${Buffer.from(`${'p'.repeat(pad)}${VALUE} tail`).toString('base64')}`,
    ]),
    ...[0, 1, 2].map((pad): [string, string] => [
      `in base64url, ${pad} bytes in`,
      `auth=${Buffer.from(`${'q'.repeat(pad)}${VALUE}!`).toString('base64url')}`,
    ]),
  ])('%s', (_name, text) => {
    const out = redactor.known(text);
    expect(out).toContain('[REDACTED:$DEPLOY_TOKEN]');
    for (const form of secretForms(VALUE)) expect(out).not.toContain(form);
    expect(out).not.toContain(VALUE.slice(0, 12));
  });

  it('the end of a value a cut went through, at the start of a text', () => {
    expect(redactor.known(`${VALUE.slice(5)} and then`)).toBe('[REDACTED:$DEPLOY_TOKEN] and then');
  });

  it('ignores values under 8 characters, and words that merely look alike', () => {
    const short = new OutputRedactor([{ name: 'PIN_KEY', value: '1234567' }]);
    expect(short.known('pin 1234567 and MTIzNDU2Nw==')).toBe('pin 1234567 and MTIzNDU2Nw==');
    expect(redactor.known('deploy value Zq8 x7')).toBe('deploy value Zq8 x7');
  });
});

describe('credential formats', () => {
  it.each<[string, string, string]>([
    ['a GitHub token', `push with ${GH} now`, 'github-token'],
    ['an AWS access key id', `id=${KEY_ID}`, 'aws-access-key-id'],
    ['an AWS secret key after "aws"', `aws_key = ${AWS_SECRET}`, 'aws-secret-access-key'],
    ['an AWS secret key assigned', `const k = "${AWS_SECRET}";`, 'aws-secret-access-key'],
    [
      'a Google API key',
      `key ${['AIza', 'Sy'.repeat(10), 'x'.repeat(15)].join('')}`,
      'google-api-key',
    ],
    ['a Slack token', `t ${['xoxb', '1234567890', 'abcdefghij'].join('-')}`, 'slack-token'],
    [
      'a JWT',
      `Bearer ${['eyJhbGciOiJIUzI1NiJ9', 'eyJzdWIiOiIxMjM0NTY3ODkwIn0', 'abcdefghijKLMNOP'].join('.')}`,
      'jwt',
    ],
    ['a token in a URL', 'clone https://oauth2:tok-12345678@host/x.git', 'url-credentials'],
    ['a password in any URL', 'db postgres://app:hunter2pw@db:5432/x', 'url-credentials'],
  ])('%s', (_name, text, rule) => {
    expect(redactor.known(text)).toContain(`[REDACTED:${rule}]`);
  });

  it('leaves git object ids and other hex digests, and ordinary long words', () => {
    const text = `commit ${GIT_HASH}\nsecret sha: ${GIT_HASH}\naws: ThisIsNotAKeyJustALongIdentifierName\n`;
    expect(redactor.known(text)).toBe(text);
  });

  it('a private key: the whole block, what is left after a cut, its middle alone', () => {
    const cases = [
      `before\n${rsa}after\n`,
      rsa.slice(900), // BEGIN cut off: the body lines before END
      `${rsa.slice(0, 700)}`, // END cut off
      bodyLines.slice(5, 14).join('\n').slice(20), // neither, and cut mid-line
    ];
    for (const text of cases) {
      const out = redactor.known(text);
      expect(out).toContain('[REDACTED:private-key]');
      for (const line of bodyLines) expect(out).not.toContain(line.slice(10, 30));
    }
    expect(redactor.known(`before\n${rsa}after\n`)).toBe('before\n[REDACTED:private-key]\nafter\n');
  });

  it("finds what only secretlint's preset knows (an npm token)", async () => {
    const npm = ['npm', '_', 'a1B2c3D4e5'.repeat(3), 'F6g7H8'].join('');
    expect(redactor.known(`//registry/:_authToken=${npm}`)).toContain(npm);
    expect(await redactor.redact(`//registry/:_authToken=${npm}`)).not.toContain(npm.slice(4));
  });

  it('at the prompt boundary, only the values and what the repository view already hides', () => {
    const fixture = `${bodyLines.slice(0, 6).join('\n')}\nconst k = "${AWS_SECRET}";\n`;
    expect(redactor.prompt(fixture)).toBe(fixture);
    expect(redactor.prompt(`${VALUE} ${GH}\n${rsa}`)).toBe(
      '[REDACTED:$DEPLOY_TOKEN] [REDACTED:github-token]\n[REDACTED:private-key]\n',
    );
  });
});

describe("a check's output, where the engine receives it", () => {
  /** A workspace whose checks print `output`. */
  const printing = (output: string) =>
    ({
      runCheck: () => Promise.resolve({ ok: false, output }),
    }) as unknown as Workspace;

  it('is redacted before its tail is cut: no piece of a key a cut went through is kept', async () => {
    // The tail kept (600 characters) begins inside each of them.
    for (const secret of [GH, VALUE, rsa]) {
      const output = `${'x'.repeat(100)}\n${secret}\n${'y'.repeat(Math.max(100, 600 - Math.floor(secret.length / 2)))}`;
      const result = await runCheck(
        {
          checks: printing(output),
          redactOutput: outputRedactor(environmentSecrets({ DEPLOY_TOKEN: VALUE })),
        },
        'tree',
        'cmd',
      );
      expect(result.output.length).toBeLessThanOrEqual(600);
      expect(result.output).toMatch(/\]\n+y+$/); // the end of the placeholder, then the rest
      for (const line of [secret, ...secret.split('\n')].filter((l) => l.length >= 16))
        expect(result.output).not.toContain(line.slice(-12));
    }
  });

  it('is redacted of key formats even where no redactor was given', async () => {
    const result = await runCheck({ checks: printing(`id ${KEY_ID}\n${rsa}`) }, 'tree', 'cmd');
    expect(result.output).toBe('id [REDACTED:aws-access-key-id]\n[REDACTED:private-key]\n');
  });
});
