import { copyFile, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { performance } from 'node:perf_hooks';
import { describe, expect, it } from 'vitest';
import type { WrittenContent } from '../../src/core/candidate-policy.js';
import { contentRedFlags } from '../../src/core/red-flags/index.js';
import { credentialFlags, credentialHits } from '../../src/core/credential-scan.js';

/** The credential red flags a candidate's written files get, as the engine computes them. */
async function flags(files: WrittenContent[]): Promise<string[]> {
  const found = contentRedFlags(files, []);
  return [...found, ...(await credentialFlags(files, found))].map((f) => f.rule);
}

const text = (s: string) => Buffer.from(s);
// Assembled, so this file holds none of them whole.
const SECRET = ['Zk3qW9vT2xR8bN5mL1pJ', '7hC4dF6gA0sE2yU8iO3w'].join('');
const STS_ID = ['ASIA', 'Y34FZKBOKMUTVV7A'].join('');
const KEY_ID = ['AKIA', 'Y34FZKBOKMUTVV7A'].join('');

describe('credential formats, by a maintained rule set (secretlint recommended)', () => {
  // Failed at main (credentialFlags did not exist; contentRedFlags alone flags none of the first five).
  it.each<[string, WrittenContent, boolean]>([
    [
      'an AWS secret access key on its own',
      { path: 'src/a.ts', after: text(`secretAccessKey = "${SECRET}";\n`) },
      true,
    ],
    [
      'an AWS secret in an ini file',
      { path: 'config/aws.ini', after: text(`aws_secret_access_key=${SECRET}\n`) },
      true,
    ],
    ['an STS key id (ASIA…)', { path: 'src/a.ts', after: text(`const id = "${STS_ID}";\n`) }, true],
    [
      'an AKIA key id encoded in UTF-16LE',
      { path: 'src/k.txt', after: Buffer.from(`key = ${KEY_ID}\n`, 'utf16le') },
      true,
    ],
    [
      'an AKIA key id encoded in UTF-16BE',
      { path: 'src/k.txt', after: Buffer.from(`key = ${KEY_ID}\n`, 'utf16le').swap16() },
      true,
    ],
    ['a GitHub token', { path: 'src/a.ts', after: text(`t = "ghp_${'a1B2'.repeat(9)}"\n`) }, true],
    // The first failed before (expected [] to equal ['secret']): the preset's comment filter let the
    // scanned file switch its own scan off.
    [
      'an AWS secret behind a secretlint-disable-line comment',
      {
        path: 'src/a.ts',
        after: text(`secretAccessKey = "${SECRET}"; // secretlint-disable-line\n`),
      },
      true,
    ],
    [
      'an AWS secret after a secretlint-disable comment',
      {
        path: 'src/a.ts',
        after: text(`/* secretlint-disable */\nsecretAccessKey = "${SECRET}";\n`),
      },
      true,
    ],
    [
      'ordinary code',
      {
        path: 'src/a.ts',
        after: text('export const total = (xs: number[]) => xs.reduce((a, b) => a + b, 0);\n'),
      },
      false,
    ],
    [
      'a credential the file already held',
      {
        path: 'src/a.ts',
        before: text(`k = "${STS_ID}"\n`),
        after: text(`k = "${STS_ID}"\n// more\n`),
      },
      false,
    ],
  ])('%s', async (_name, file, flagged) => {
    expect(await flags([file])).toEqual(flagged ? ['secret'] : []);
  });
});

describe('the scan keeps nothing per file', () => {
  // Failed before (secretlint's profiler was on): 1,240 marks left in Node's global
  // performance buffer (and in the profiler's own lists) by 20 scans, about 250 KB a node in a
  // 10,000-leaf run.
  it('leaves no performance marks or measures behind', async () => {
    performance.clearMarks();
    performance.clearMeasures();
    for (let i = 0; i < 20; i++) {
      await credentialFlags([{ path: `src/${i}.ts`, after: text(`export const n = ${i};\n`) }], []);
    }
    await new Promise((resolve) => setImmediate(resolve));
    expect(performance.getEntriesByType('mark').length).toBe(0);
    expect(performance.getEntriesByType('measure').length).toBe(0);
  });
});

describe('the scan judges what the candidate wrote, never a file of the machine', () => {
  // Failed before (the harmless text was flagged): secretlint's GCP rule read the `.p12` file at
  // `/<path>` from the disk, here a PKCS#12 file with GCP's password (a throw-away key).
  it("a .p12 path whose twin on this machine's disk is a key", async () => {
    const dir = await mkdtemp(join(tmpdir(), 'maker-p12-'));
    try {
      const onDisk = join(dir, 'key.p12');
      await copyFile('test/fixtures/gcp-style-key.p12', onDisk);
      const path = relative('/', onDisk);
      expect([...(await credentialHits(path, text('harmless text\n')))]).toEqual([]);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
});
