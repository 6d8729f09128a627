import { describe, expect, it } from 'vitest';
import { MemoryWorkspace } from '../../src/adapters/memory/memory-workspace.js';
import { RepoContextBuilder } from '../../src/engine/context/repo-context.js';
import { repositoryView } from '../../src/engine/context/node-context.js';

/** A configured key of the run (say JULES_API_KEY), in no published format. */
const RUN_KEY = 'jk-run-key-5f1e2d3c4b5a69788796a5b4';
const GH = `ghp_${'a1B2c3D4e5'.repeat(3)}A1B2c3`;
const GOOGLE = `AIza${'Sy0123456789abcdefghijklmnopqrstu'.slice(0, 35)}`;

const FILES: Record<string, string> = {
  'README.md': '# app\n',
  '.env': `GITHUB_TOKEN=${GH}\nDB_PASSWORD=hunter2-not-a-known-format\n`,
  '.env.production': 'DB_PASSWORD=prod-password-not-a-known-format\n',
  '.env.example': 'DB_PASSWORD=\n',
  'deploy/server.pem':
    '-----BEGIN RSA PRIVATE KEY-----\nMIIEpAIBAAKCAQEAabc\n-----END RSA PRIVATE KEY-----\n',
  'deploy/id_rsa':
    '-----BEGIN OPENSSH PRIVATE KEY-----\nb3BlbnNzaC1rZXktdjEAAAA\n-----END OPENSSH PRIVATE KEY-----\n',
  '.npmrc': '//registry.npmjs.org/:_authToken=npm_notaknownformat0123456789\n',
  'config/credentials.json': '{"client_secret": "cs-not-a-known-format-0123"}\n',
  'maker-state.json': '{"$schemaVersion": 2, "note": "maker state in the tree"}\n',
  'src/config.ts': `export const GOOGLE_KEY = '${GOOGLE}';\nexport const JULES = '${RUN_KEY}';\nexport function load(): void {}\n`,
};

describe('RepoContextBuilder: no credentials reach the model', () => {
  it('withholds secret-bearing files and MAKER state, and redacts keys in the files it shows', async () => {
    const ws = new MemoryWorkspace(FILES);
    const base = (await ws.resolve('main')) as string;
    const built = await new RepoContextBuilder(ws).build(
      { base, scope: [], dependencies: [] },
      50_000,
      [RUN_KEY],
    );
    const text = built.text;
    for (const secret of [
      GH,
      'hunter2-not-a-known-format',
      'prod-password-not-a-known-format',
      'MIIEpAIBAAKCAQEAabc',
      'b3BlbnNzaC1rZXktdjEAAAA',
      'npm_notaknownformat0123456789',
      'cs-not-a-known-format-0123',
      'maker state in the tree',
      GOOGLE,
      RUN_KEY,
    ])
      expect(text, secret).not.toContain(secret);
    // The files still exist for the model: named in the map, their contents withheld.
    expect(text).toContain('\n.env (contents withheld)\n');
    expect(text).toContain('deploy/server.pem');
    expect(text).toMatch(/withheld/i);
    // Ordinary files are shown whole, with a key in them redacted; a template .env is ordinary.
    expect(text).toContain('=== README.md ===\n# app\n');
    expect(text).toContain('=== .env.example ===\nDB_PASSWORD=\n');
    expect(text).toContain('=== src/config.ts ===\nexport const GOOGLE_KEY = ');
    expect(text).toContain('export function load(): void {}');
    expect(built.chars).toBeLessThanOrEqual(50_000);
  });

  it('keeps withheld files out of a scope that names them', async () => {
    const ws = new MemoryWorkspace(FILES);
    const base = (await ws.resolve('main')) as string;
    const built = await new RepoContextBuilder(ws).build(
      { base, scope: ['.env', 'deploy/'], dependencies: [] },
      50_000,
    );
    expect(built.text).not.toContain(GH);
    expect(built.text).not.toContain('MIIEpAIBAAKCAQEAabc');
    expect(built.text).toMatch(/\.env[^\n]*withheld/i);
  });

  it("a node's view redacts the run's configured keys", async () => {
    const ws = new MemoryWorkspace(FILES);
    const base = (await ws.resolve('main')) as string;
    const view = repositoryView(
      { workspace: ws, emit: () => {}, secrets: [RUN_KEY] },
      { id: 'n' },
      {
        base,
        scope: ['src/'],
        dependencies: [],
      },
    );
    const { text } = await view(20_000);
    expect(text).toContain("export const JULES = '[redacted]';");
    expect(text).not.toContain(RUN_KEY);
  });
});
