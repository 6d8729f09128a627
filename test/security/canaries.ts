import { randomBytes } from 'node:crypto';
import { chmod, mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { createServer, type Server } from 'node:net';
import { join } from 'node:path';

/**
 * Secrets planted wherever a person's credentials can live on a machine, each holding the same
 * random marker (`MAKER-CANARY-<hex>-<place>`), so a test can look for the marker in anything a
 * run writes or sends: nothing a check or an install prints may ever hold it.
 */
export interface Canaries {
  /** The marker every canary holds. */
  readonly secret: string;
  /** The fake home directory, holding credential files and an agent's socket. */
  readonly home: string;
  /** A directory on the PATH beside which a credential lies (a toolchain's prefix). */
  readonly toolBin: string;
  /** Environment variables holding canaries. */
  readonly env: Readonly<Record<string, string>>;
  /** A shell command that tries every way to reach a canary, then prints the markers it found. */
  readonly probe: string;
  close(): Promise<void>;
}

/**
 * Plants the canaries under `outside` (a directory not under `/tmp`, which sandboxes replace),
 * beside the repository at `repo` (a sibling project), and where the machine lets a test write:
 * `/run`, `/var/tmp`, `/opt`, a file of `/etc` only root may read.
 */
export async function plantCanaries(outside: string, repo: string): Promise<Canaries> {
  const hex = randomBytes(6).toString('hex');
  const secret = `MAKER-CANARY-${hex}`;
  const mark = (place: string) => `${secret}-${place}\n`;
  const home = join(outside, 'home');
  const files: [string, string][] = [
    [join(home, '.ssh', 'id_rsa'), 'ssh-key'],
    [join(home, '.bash_history'), 'history'],
    [join(home, '.config', 'gh', 'hosts.yml'), 'gh'],
    [join(home, '.config', 'other-tool', 'token'), 'other-tool'],
    [join(home, '.cargo', 'credentials.toml'), 'cargo'],
    [join(home, '.aws', 'credentials'), 'aws'],
    [join(home, '.gemini', 'oauth_creds.json'), 'gemini'],
    [join(home, '.npmrc'), 'npmrc'],
    [join(home, 'tools', 'credentials'), 'tool-prefix'],
    [join(repo, '..', `sibling-${hex}`, '.env'), 'sibling'],
    [join(outside, 'root-only'), 'root-only'],
  ];
  for (const [path, place] of files) {
    await mkdir(join(path, '..'), { recursive: true });
    await writeFile(path, mark(place));
  }
  await chmod(join(outside, 'root-only'), 0o600);
  // A toolchain beside the credential: its programs are shown to checks, its other files never.
  const toolBin = join(home, 'tools', 'bin');
  await mkdir(toolBin, { recursive: true });
  await writeFile(join(toolBin, 'pnpm'), '#!/bin/sh\necho fake pnpm\n', { mode: 0o755 });

  // Places of the machine a test may write to; each is removed after.
  const machine: string[] = [];
  for (const [dir, place] of [
    ['/run', 'run'],
    ['/var/tmp', 'var-tmp'],
    ['/opt', 'opt'],
  ] as const) {
    const made = await mkdtemp(join(dir, 'maker-canary-')).catch(() => undefined);
    if (made === undefined) continue;
    machine.push(made);
    await writeFile(join(made, 'secret'), mark(place));
  }
  const etc = `/etc/maker-canary-${hex}`;
  const etcMade = await writeFile(etc, mark('etc-root-only'), { mode: 0o600 }).then(
    () => true,
    () => false,
  );

  // Services on Unix sockets that answer with a canary: an agent in the home, one under /run, an
  // abstract one.
  const servers: Server[] = [];
  const socketPaths = [join(home, 'agent.sock')];
  if (machine[0]?.startsWith('/run/') === true) socketPaths.push(join(machine[0], 'service.sock'));
  const abstract = `\0maker-canary-${hex}`;
  for (const [path, place] of [
    ...socketPaths.map((p) => [p, 'socket'] as const),
    [abstract, 'abstract-socket'] as const,
  ]) {
    const server = createServer((s) => s.end(mark(place)));
    await new Promise<void>((resolve) => server.listen(path, resolve));
    servers.push(server);
  }

  const env = {
    MAKER_CANARY_TOKEN: mark('env').trim(),
    AWS_SECRET_ACCESS_KEY: mark('aws-env').trim(),
  };
  const readable = [
    ...files.map(([p]) => p),
    ...machine.map((d) => join(d, 'secret')),
    ...(etcMade ? [etc] : []),
  ];
  const connect = Buffer.from(
    `for (const p of ${JSON.stringify([...socketPaths, abstract])}) require('net').connect(p).on('data', (d) => process.stdout.write(d)).on('error', () => {})`,
  ).toString('base64');
  const probe = [
    `( for f in ${readable.map((p) => `'${p}'`).join(' ')}; do cat "$f"; done`,
    `ls -laR '${home}' '${outside}'; ls -la /run /var /opt /root /home /mnt /srv /media`,
    'env; cat /proc/1/environ; cat /proc/*/environ',
    `cat '${join(home, 'tools', 'bin', '..', 'credentials')}'`,
    `find /run /var /opt /etc /root /home /srv /mnt -maxdepth 3 -name 'maker-canary-*' -exec cat {} +`,
    `node -e "eval(Buffer.from('${connect}', 'base64').toString())"`,
    `sleep 1 ) > /tmp/probe.out 2>&1`,
    `grep -ao 'MAKER-CANARY-[0-9a-f]*-[a-z-]*' /tmp/probe.out | sort -u`,
    'echo probe-done',
  ].join('; ');
  return {
    secret,
    home,
    toolBin,
    env,
    probe,
    close: async () => {
      await Promise.all(servers.map((s) => new Promise((r) => s.close(r))));
      for (const dir of machine) await rm(dir, { recursive: true, force: true });
      if (etcMade) await rm(etc, { force: true });
      await rm(join(repo, '..', `sibling-${hex}`), { recursive: true, force: true });
    },
  };
}
