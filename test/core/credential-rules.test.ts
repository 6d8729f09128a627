import { lintSource } from '@secretlint/core';
import { describe, expect, it } from 'vitest';
import { creator } from '@secretlint/secretlint-rule-preset-recommend';
import { CredentialRules, type CredentialConfig } from '../../src/core/credential-rules.js';
import { CREDENTIAL_CONFIG } from '../../src/core/credential-scan.js';

// Assembled, so this file holds none of them whole.
const SECRET = ['Zk3qW9vT2xR8bN5mL1pJ', '7hC4dF6gA0sE2yU8iO3w'].join('');
const STS_ID = ['ASIA', 'Y34FZKBOKMUTVV7A'].join('');
const KEY_ID = ['AKIA', 'Y34FZKBOKMUTVV7A'].join('');
const PEM = ['-----BEGIN RSA ', 'PRIVATE KEY-----'].join('');
const PEM_END = ['-----END RSA ', 'PRIVATE KEY-----'].join('');

/** Files by kind: the credential kinds of `credential-formats.test.ts`, more of the preset's, none. */
const SAMPLES: readonly {
  name: string;
  path: string;
  content: string;
  finds: boolean;
  /** What secretlint's preset finds as it is, its comment filter on (`finds` when not given). */
  preset?: boolean;
}[] = [
  {
    name: 'AWS secret',
    path: 'src/a.ts',
    content: `secretAccessKey = "${SECRET}";\n`,
    finds: true,
  },
  {
    name: 'AWS ini',
    path: 'config/aws.ini',
    content: `aws_secret_access_key=${SECRET}\n`,
    finds: true,
  },
  { name: 'STS key id', path: 'src/a.ts', content: `const id = "${STS_ID}";\n`, finds: true },
  { name: 'AKIA key id', path: 'src/k.txt', content: `key = ${KEY_ID}\n`, finds: true },
  {
    name: 'GitHub token',
    path: 'src/a.ts',
    content: `t = "ghp_${'a1B2'.repeat(9)}"\n`,
    finds: true,
  },
  {
    name: 'private key',
    path: 'keys/id_rsa',
    content: `${PEM}\n${'MIIEowIBAAKCAQEA'.repeat(10)}\n${PEM_END}\n`,
    finds: true,
  },
  {
    name: 'basic auth in a URL',
    path: 'src/db.ts',
    content: `const url = "https://admin:${SECRET}@example.com/";\n`,
    finds: true,
  },
  {
    name: 'behind a secretlint-disable-line comment',
    path: 'src/a.ts',
    content: `const id = "${STS_ID}"; // secretlint-disable-line\n`,
    finds: true,
    preset: false,
  },
  {
    name: 'after a byte order mark',
    path: 'src/b.ts',
    content: `\uFEFFconst id = "${STS_ID}";\n`,
    finds: true,
  },
  {
    name: 'behind a disable-next-line comment, CRLF lines',
    path: 'src/c.ts',
    content: `const a = 1;\r\n// secretlint-disable-next-line\r\nconst id = "${STS_ID}";\r\nconst k = "${KEY_ID}";\r\n`,
    finds: true,
  },
  {
    name: 'ordinary code',
    path: 'src/a.ts',
    content: 'export const total = (xs: number[]) => xs.reduce((a, b) => a + b, 0);\n',
    finds: false,
  },
];

function extension(path: string): string {
  const dot = path.lastIndexOf('.');
  return dot <= path.lastIndexOf('/') + 1 ? '' : path.slice(dot);
}

/** secretlint's recommended preset as it is: its comment filter on (MAKER's config leaves it out). */
const PRESET: CredentialConfig = {
  rules: [
    {
      id: '@secretlint/secretlint-rule-preset-recommend',
      rule: creator,
      rules: [{ id: '@secretlint/secretlint-rule-aws', options: { enableIDScanRule: true } }],
    },
  ],
};

/** secretlint's own answer: `lintSource`, which sets every rule up again for the one file. */
async function reference(
  config: CredentialConfig,
  path: string,
  content: string,
): Promise<string[]> {
  const result = await lintSource({
    source: { filePath: `/${path}`, content, ext: extension(path), contentType: 'text' },
    options: { config },
  });
  return result.messages.map((m) => `${m.range[0]}-${m.range[1]}`).sort();
}

describe('credential rules made once, used for many scans', () => {
  it.each([
    ["MAKER's config (no comment filter)", CREDENTIAL_CONFIG, false],
    ['the preset as it is (comments can hide a finding)', PRESET, true],
  ] as const)(
    "find what secretlint's lintSource finds, scan after scan, many at once: %s",
    async (_name, config, preset) => {
      const expected = await Promise.all(SAMPLES.map((s) => reference(config, s.path, s.content)));
      for (const [i, sample] of SAMPLES.entries())
        expect(expected[i]!.length > 0, sample.name).toBe(
          preset ? (sample.preset ?? sample.finds) : sample.finds,
        );
      const rules = new CredentialRules(config);
      for (let round = 0; round < 25; round++) {
        // All samples at once, in a different order each round: every scan in flight has its own
        // rule set, and a reused one keeps nothing of the file before.
        const order = SAMPLES.map((_, i) => (i * 7 + round) % SAMPLES.length);
        const found = await Promise.all(
          order.map(async (i) => {
            const s = SAMPLES[i]!;
            const ranges = await rules.scan({
              filePath: `/${s.path}`,
              content: s.content,
              ext: extension(s.path),
            });
            return [i, ranges.map(([a, b]) => `${a}-${b}`).sort()] as const;
          }),
        );
        for (const [i, ranges] of found) expect(ranges, SAMPLES[i]!.name).toEqual(expected[i]);
      }
    },
  );
});
