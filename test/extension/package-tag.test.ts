import { execFileSync, spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';

const version = (JSON.parse(readFileSync('package.json', 'utf8')) as { version: string }).version;
const pack = (args: string[], env: Record<string, string> = {}) =>
  spawnSync(process.execPath, ['scripts/package.mjs', ...args], {
    encoding: 'utf8',
    env: { PATH: process.env['PATH'] ?? '', ...env },
  });

describe('the release archive', () => {
  it('is refused when the tag is not the version', () => {
    const wrong = pack(['--tag', 'v99.0.0']);
    expect(wrong.status).toBe(1);
    expect(wrong.stderr).toContain(`the tag v99.0.0 is not version ${version}`);
    const ci = pack([], { GITHUB_REF_TYPE: 'tag', GITHUB_REF_NAME: 'v99.0.1' });
    expect(ci.status).toBe(1);
  });

  it('for the version’s tag: one asset named for no platform, the manifest at its root', () => {
    const made = pack(['--tag', `v${version}`]);
    expect(made.status).toBe(0);
    const listed = execFileSync('tar', ['-tzf', 'release/maker-extension.tar.gz'], {
      encoding: 'utf8',
    }).split('\n');
    expect(listed).toContain('gemini-extension.json');
    const name = /wrote release\/(\S+)/.exec(made.stderr)?.[1] ?? '';
    expect(name).toMatch(/\.tar\.gz$/);
    expect(name).not.toMatch(/darwin|linux|win32/);
    const manifest = JSON.parse(
      execFileSync('tar', ['-xzOf', 'release/maker-extension.tar.gz', 'gemini-extension.json'], {
        encoding: 'utf8',
      }),
    ) as { version: string };
    expect(manifest.version).toBe(version);
  });
});
