import { resolve } from 'node:path';
import { UsageError } from '../../../core/errors.js';
import { startFakeJules, type FakeAgentScript } from '../../../testing/fake-jules.js';
import { simJulesAgent } from '../../../testing/sim-jules-agent.js';
import { SERVE_NOTE, stdinLifetimeFlag, untilStopped } from './serve.js';
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
  run: async ({ options: o }, { io, signal }) => {
    const sources = (o.source ?? []).map((spec) => {
      const match = /^([^/=\s]+)\/([^/=\s]+)=(.+)$/.exec(spec) as RegExpExecArray;
      return {
        owner: match[1] as string,
        repo: match[2] as string,
        gitDir: resolve(io.cwd, match[3] as string),
      };
    });
    const first = sources[0];
    if (first === undefined)
      throw new UsageError('maker fake-jules needs at least one --source owner/repo=<git dir>.');
    const apiKey = o.apiKey ?? io.env['FAKE_JULES_API_KEY'] ?? 'fake';
    const agent =
      (o.agent ?? 'sim') === 'sim'
        ? simJulesAgent({ seed: o.seed ?? 1, gitDir: first.gitDir })
        : (context: { startingBranch: string }): FakeAgentScript => {
            const path = `${context.startingBranch}.txt`;
            return {
              patch: `diff --git a/${path} b/${path}\nnew file mode 100644\n--- /dev/null\n+++ b/${path}\n@@ -0,0 +1 @@\n+done\n`,
            };
          };
    const fake = await startFakeJules({
      apiKey,
      sources,
      agent,
      ...(o.workMs === undefined ? {} : { workMs: o.workMs }),
      ...(o.port === undefined ? {} : { port: o.port }),
    });
    io.stdout(`${JSON.stringify({ baseUrl: fake.baseUrl, apiKey })}\n`);
    await untilStopped(signal, o.stdinLifetime === true);
    await fake.close();
    return 0;
  },
});
