import { DEMO_OWNER } from '../../../app/github/demo-owner.js';
import { SERVE_NOTE, stdinLifetimeFlag } from './serve.js';
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
  notes: `The token clients must send comes from MAKER_FAKE_GITHUB_TOKEN; without it, the
fake makes its own (fake-github-…, which opens this fake and nothing else) and
prints it. Prints one JSON line, {"baseUrl": …, "login": …} (with "token" only
when it made one), once listening. A browser can open the repository and pull
request links MAKER prints (<baseUrl>/<owner>/<repo>, …/pull/<n>): simple pages,
marked simulated, that need no token. Faults are set, and the
request log (never a header) read, under /_fake/… (GET /_fake/requests,
GET /_fake/state, POST /_fake/faults).

${SERVE_NOTE}
`,
  exits: [
    [0, 'stopped (interrupted, terminated, or input closed with --stdin-lifetime)'],
    [2, 'usage error'],
  ],
});
