import { createHash } from 'node:crypto';
import { rules as recommended } from '@secretlint/secretlint-rule-preset-recommend';
import type { WrittenContent } from './candidate-policy.js';
import type { CredentialMatch } from './credential-formats.js';
import { CredentialRules, type CredentialConfig } from './credential-rules.js';
import { showPath } from './paths.js';
import type { RedFlag } from './voting/types.js';

/**
 * Credentials by a maintained rule set: secretlint's recommended preset (AWS access key ids of every
 * prefix, AKIA and STS ASIA among them, and secret access keys on their own; GCP, GitHub, Slack,
 * npm, OpenAI, Anthropic, private keys, basic auth, database connection strings…), with AWS key
 * ids scanned too. Run on the text as bytes (Latin-1, so binary content is scanned byte for byte)
 * and, when it looks like UTF-16, as UTF-16 decoded both ways, so an encoded key is found too.
 * The preset's comment filter is off: a `secretlint-disable` comment in what a candidate writes
 * must not switch off the scan of what it writes.
 */
export const CREDENTIAL_CONFIG: CredentialConfig = {
  // The preset's rules one by one: secretlint does not honour `disabled` for a rule in a preset.
  rules: recommended
    .filter((rule) => rule.meta.id !== '@secretlint/secretlint-rule-filter-comments')
    .map((rule) =>
      rule.meta.id === '@secretlint/secretlint-rule-aws'
        ? { id: rule.meta.id, rule, options: { enableIDScanRule: true } }
        : { id: rule.meta.id, rule },
    ),
};

/** The rule set, made once per process (`credential-rules.ts`). */
const RULES = new CredentialRules(CREDENTIAL_CONFIG);

/**
 * Scans already made, by path and content: samples that agree write the same files. Oldest
 * first; at most `SCANS_KEPT`.
 */
const scans = new Map<string, Promise<ReadonlySet<string>>>();
const SCANS_KEPT = 512;

/** The credentials found in `bytes` (the matched text of each), by the rule set; empty when none. */
export function credentialHits(path: string, bytes: Uint8Array): Promise<ReadonlySet<string>> {
  const key = `${path}\0${createHash('sha256').update(bytes).digest('base64')}`;
  const known = scans.get(key);
  if (known !== undefined) {
    scans.delete(key);
    scans.set(key, known);
    return known;
  }
  const scan = scanFor(path, bytes);
  scans.set(key, scan);
  // A failed scan is not kept: the next asks again.
  scan.catch(() => scans.delete(key));
  if (scans.size > SCANS_KEPT) scans.delete(scans.keys().next().value as string);
  return scan;
}

async function scanFor(path: string, bytes: Uint8Array): Promise<ReadonlySet<string>> {
  const hits = new Set<string>();
  for (const content of views(bytes)) {
    const ranges = await RULES.scan({ filePath: scannedName(path), content, ext: extension(path) });
    for (const [start, end] of ranges) hits.add(content.slice(start, end));
  }
  return hits;
}

/**
 * Where the rule set finds credentials in `text` (a check's output), each with its rule's short
 * name (`github`, `aws`, `privatekey`…). A range runs on to the end of the token it ends in: a rule
 * may report fewer characters than it matched (secretlint's AWS secret rule reports the key's
 * length from the start of its variable's name).
 */
export async function credentialFindings(text: string): Promise<CredentialMatch[]> {
  const found = await RULES.findings({
    filePath: scannedName('check-output.txt'),
    content: text,
    ext: '.txt',
  });
  return found.map(({ ruleId, range: [start, end] }) => {
    let stop = end;
    while (stop < text.length && /[A-Za-z0-9+/=_-]/.test(text[stop] as string)) stop += 1;
    return { rule: ruleId.replace(/^@secretlint\/secretlint-rule-/, ''), start, end: stop };
  });
}

/** The texts a file is scanned as: its bytes, and UTF-16 (little- and big-endian) when it looks so. */
function views(bytes: Uint8Array): string[] {
  const buffer = Buffer.from(bytes);
  const out = [buffer.toString('latin1')];
  const zeros = buffer.subarray(0, 4096).filter((b) => b === 0).length;
  if (buffer.length >= 2 && zeros * 4 >= Math.min(buffer.length, 4096)) {
    const even = buffer.subarray(0, buffer.length - (buffer.length % 2));
    out.push(even.toString('utf16le'));
    out.push(Buffer.from(even).swap16().toString('utf16le'));
  }
  return out;
}

/**
 * The name the rules see a file by: its path, after a NUL byte that no file system accepts. The
 * rules match names by their ends (`package.json`, `.npmrc`), but secretlint's GCP rule reads a
 * `.p12` file from the disk by its name: it would judge the machine's file at `/<path>`, not what
 * the candidate wrote (a harmless text at `tmp/x.p12` was flagged when `/tmp/x.p12` held a key).
 */
function scannedName(path: string): string {
  return `\0/${path}`;
}

function extension(path: string): string {
  const name = path.split('/').pop() ?? path;
  const dot = name.lastIndexOf('.');
  return dot <= 0 ? '' : name.slice(dot);
}

/**
 * The `secret` red flag for credentials the rule set finds in what a candidate writes that the old
 * content did not already hold; none when `already` (the hand-kept formats flagged them first).
 */
export async function credentialFlags(
  files: readonly WrittenContent[],
  already: readonly RedFlag[],
): Promise<RedFlag[]> {
  if (already.some((f) => f.rule === 'secret')) return [];
  const leaking: string[] = [];
  for (const f of files) {
    const after = await credentialHits(f.path, f.after);
    if (after.size === 0) continue;
    const before: ReadonlySet<string> =
      f.before === undefined ? new Set<string>() : await credentialHits(f.path, f.before);
    if ([...after].some((hit) => !before.has(hit))) leaking.push(f.path);
  }
  return leaking.length === 0
    ? []
    : [
        {
          rule: 'secret',
          message: `The candidate adds what looks like a credential to ${leaking
            .map((p) => showPath(p))
            .slice(0, 5)
            .join(', ')}.`,
        },
      ];
}
