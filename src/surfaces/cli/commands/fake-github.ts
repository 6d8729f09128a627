import { randomBytes } from 'node:crypto';
import { resolve } from 'node:path';
import { startFakeGitHub } from '../../../testing/fake-github.js';
import { DEMO_OWNER } from '../demo-github.js';
import { SERVE_NOTE, stdinLifetimeFlag, untilStopped } from './serve.js';
import { defineCommand, option } from '../define.js';
import { text, wholeNumber } from '../values.js';

export const fakeGitHubCommand = defineCommand({
  name: 'fake-github',
  summary: 'a local fake GitHub (REST API and git over HTTP) for trying --github offline',
  description: `A local fake of GitHub on 127.0.0.1, over real bare repositories.

Serves the REST routes MAKER uses (repositories, git refs, compare, pull
requests, merges, comments) with GitHub's JSON shapes, status codes, error
bodies and rate-limit headers, and git's smart HTTP protocol (git push and
fetch) for the same repositories, behind the token. Point MAKER at it with
GITHUB_API_URL=<baseUrl> and GITHUB_TOKEN=<token>: \`maker run --github
<login>/<name>\` then creates the repository there, and \`maker demo\` uses it
(so a killed demo can be resumed).`,
  options: {
    login: option(
      '--login <login>',
      `the user the token belongs to (default ${DEMO_OWNER})`,
      text('a GitHub login', /^[A-Za-z0-9][A-Za-z0-9-]{0,38}$/),
    ),
    root: option(
      '--root <dir>',
      'where the bare repositories live (default: a temporary directory, removed on exit)',
      text('a directory'),
    ),
    port: option(
      '--port <port>',
      'port (default: any free one)',
      wholeNumber({ min: 0, max: 65_535 }),
    ),
    stdinLifetime: stdinLifetimeFlag,
  },
  notes: `The token clients must send comes from MAKER_FAKE_GITHUB_TOKEN; without it, a
fresh one is made and printed. Prints one JSON line, {"baseUrl": …, "login": …}
(with "token" only when it made one), once listening. Faults are set, and the
request log (never a header) read, under /_fake/… (GET /_fake/requests,
GET /_fake/state, POST /_fake/faults).

${SERVE_NOTE}
`,
  exits: [
    [0, 'stopped (interrupted, terminated, or input closed with --stdin-lifetime)'],
    [2, 'usage error'],
  ],
  run: async ({ options: o }, { io, signal }) => {
    const given = io.env['MAKER_FAKE_GITHUB_TOKEN']?.trim() ?? '';
    const token = given === '' ? `ghp_${randomBytes(18).toString('hex')}` : given;
    const login = o.login ?? DEMO_OWNER;
    const fake = await startFakeGitHub({
      tokens: [{ token, login }],
      ...(o.root === undefined ? {} : { root: resolve(io.cwd, o.root) }),
      ...(o.port === undefined ? {} : { port: o.port }),
    });
    io.stdout(
      `${JSON.stringify({ baseUrl: fake.baseUrl, login, ...(given === '' ? { token } : {}) })}\n`,
    );
    await untilStopped(signal, o.stdinLifetime === true);
    await fake.close();
    return 0;
  },
});
