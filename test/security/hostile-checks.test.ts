import { execFile } from 'node:child_process';
import { mkdir, mkdtemp, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { GitWorkspace } from '../../src/adapters/git/git-workspace.js';
import { plantCanaries, type Canaries } from './canaries.js';
import { machineSandbox } from '../helpers/settings.js';

const execFileAsync = promisify(execFile);

/**
 * A check is a command a model wrote: whatever it tries, it reaches nothing of the person's. The
 * canaries lie where credentials live (a home's key files, other tools' settings, a sibling
 * project's `.env`, a root-only file, `/run`, `/var/tmp`, `/opt`, a root-only file of `/etc`, an
 * agent's socket, an abstract socket, MAKER's own environment, beside a toolchain on the PATH).
 */
let outside: string;
let canaries: Canaries;
let repo: string;

beforeAll(async () => {
  // Outside /tmp, which every sandbox replaces with an empty one (a canary there proves nothing).
  const root = join(process.cwd(), 'node_modules', '.cache');
  await mkdir(root, { recursive: true });
  outside = await mkdtemp(join(root, 'maker-security-'));
  repo = join(outside, 'project');
  await mkdir(repo);
  canaries = await plantCanaries(outside, repo);
});

afterAll(async () => {
  await canaries.close();
  await rm(outside, { recursive: true, force: true });
});

it('the probe finds every canary when nothing confines it (so it proves something)', async () => {
  const { stdout } = await execFileAsync('sh', ['-c', canaries.probe], {
    env: { ...process.env, ...canaries.env },
    maxBuffer: 64 * 1024 * 1024,
  });
  for (const place of [
    'ssh-key',
    'history',
    'gh',
    'cargo',
    'sibling',
    'root-only',
    'socket',
    'abstract-socket',
    'env',
    'tool-prefix',
  ])
    expect(stdout).toContain(`${canaries.secret}-${place}`);
});

for (const name of ['bubblewrap', 'unshare'] as const) {
  const sandbox = await machineSandbox(name);
  describe.skipIf(sandbox === undefined)(`a hostile check in ${name}`, () => {
    it('reaches no canary, and still runs (the toolchain on the PATH works)', async () => {
      const ws = await GitWorkspace.open(repo, {
        create: true,
        sandbox: () => Promise.resolve(sandbox),
        env: {
          ...process.env,
          ...canaries.env,
          HOME: canaries.home,
          PATH: `${canaries.toolBin}:${process.env['PATH'] ?? ''}`,
        },
      });
      try {
        const base = (await ws.resolve('main')) as string;
        const result = await ws.runCheck(
          base,
          `${canaries.probe}; pnpm; cat ~/.ssh/id_rsa`,
          60_000,
        );
        expect(result.output).toContain('probe-done');
        expect(result.output).toContain('fake pnpm');
        expect(result.output).not.toContain(canaries.secret);
      } finally {
        await ws.close();
      }
    });
  });
}
