import { randomBytes } from 'node:crypto';
import { resolve } from 'node:path';
import { startFakeGitHub } from '../../../offline/fake-github.js';
import { DEMO_OWNER } from '../demo-github.js';
import { listening, untilStopped } from './serve.js';
import type { fakeGitHubCommand } from './fake-github.js';
import type { CliContext, InputOf } from '../define.js';

/** `maker fake github`, loaded when it runs (see fake-github.ts for its options and help). */
export async function run(
  { options: o }: InputOf<typeof fakeGitHubCommand>,
  { io, signal }: CliContext,
): Promise<number> {
  const given = io.env['MAKER_FAKE_GITHUB_TOKEN']?.trim() ?? '';
  // The fake's own token opens only this fake, so it is printed. Not in a GitHub token's format:
  // maker's output redacts those, which would print it as "[redacted]".
  const token = given === '' ? `fake-github-${randomBytes(18).toString('hex')}` : given;
  const login = o.login ?? DEMO_OWNER;
  const fake = await listening(o.port, () =>
    startFakeGitHub({
      tokens: [{ token, login }],
      ...(o.root === undefined ? {} : { root: resolve(io.cwd, o.root) }),
      ...(o.port === undefined ? {} : { port: o.port }),
    }),
  );
  io.stdout(
    `${JSON.stringify({ baseUrl: fake.baseUrl, login, ...(given === '' ? { token } : {}) })}\n`,
  );
  await untilStopped(signal, o.stdinLifetime === true);
  await fake.close();
  return 0;
}
