import { SERVE_NOTE, stdinLifetimeFlag } from './serve.js';
import { defineCommand, list, option, required } from '../define.js';
import { oneOf, text, wholeNumber } from '../values.js';

export const fakeJulesCommand = defineCommand({
  name: 'fake-jules',
  summary: 'a local fake Jules API server (for trying --worker jules offline)',
  description: `A local fake of the Jules REST API (v1alpha).

Serves the Jules routes (sources, sessions, activities, :approvePlan,
:sendMessage) on 127.0.0.1 with the real JSON shapes and Google error envelope.
Sessions start from branches of the real git repositories given with --source,
walk through QUEUED, PLANNING, IN_PROGRESS to COMPLETED, and return the agent's
patch as a changeSet. Point MAKER at it with JULES_BASE_URL and JULES_API_KEY.`,
  options: {
    source: required(
      list(
        '--source <spec>',
        'a repository Jules "sees": owner/repo=path to its git directory (repeatable; at least one)',
        text('owner/repo=<git dir>', /^[^/=\s]+\/[^/=\s]+=.+$/),
      ),
    ),
    agent: option(
      '--agent <agent>',
      "sim (default): writes the subtask's files from the prompt, with seeded failures, stale patches and wrong answers; touch: every session adds a file named after its starting branch",
      oneOf(['sim', 'touch']),
    ),
    workMs: option(
      '--work-ms <ms>',
      'simulated work per session, in ms (default 0: one state per read)',
      wholeNumber({ min: 0, max: 3_600_000 }),
    ),
    seed: option('--seed <s>', "the sim agent's seed (default 1)", wholeNumber({ min: 0 })),
    apiKey: option(
      '--api-key <key>',
      'the key clients must send (default: FAKE_JULES_API_KEY, else "fake")',
      text(),
    ),
    port: option(
      '--port <port>',
      'port (default: any free one)',
      wholeNumber({ min: 0, max: 65_535 }),
    ),
    stdinLifetime: stdinLifetimeFlag,
  },
  notes: `Prints one JSON line, {"baseUrl": …, "apiKey": …}, once listening.
GET /_fake/requests lists the requests it answered.

${SERVE_NOTE}
`,
  exits: [
    [0, 'stopped (interrupted, terminated, or input closed with --stdin-lifetime)'],
    [2, 'usage error'],
  ],
});
