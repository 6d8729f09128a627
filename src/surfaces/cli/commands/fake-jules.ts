import { resolve } from 'node:path';
import { UsageError } from '../../../core/errors.js';
import { startFakeJules, type FakeAgentScript } from '../../../testing/fake-jules.js';
import { simJulesAgent } from '../../../testing/sim-jules-agent.js';
import { numberFlag, parseCommandArgs, rejectPositionals } from '../args.js';
import type { CliIo } from '../io.js';

export const FAKE_JULES_HELP = `maker fake-jules — a local fake of the Jules REST API (v1alpha)

Usage:
  maker fake-jules --source <owner>/<repo>=<git dir> [--source …] [--agent sim|touch]
                   [--work-ms W] [--seed S] [--api-key K] [--port P]

Serves the Jules routes (sources, sessions, activities, :approvePlan,
:sendMessage) on 127.0.0.1 with the real JSON shapes and Google error envelope.
Sessions start from branches of the real git repositories given with --source,
walk through QUEUED, PLANNING, IN_PROGRESS to COMPLETED, and return the agent's
patch as a changeSet. Point MAKER at it with JULES_BASE_URL and JULES_API_KEY.

Options:
  --source S    a repository Jules "sees": owner/repo=path to its git directory
  --agent A     sim (default): writes the subtask's files from the prompt, with
                seeded failures, stale patches and wrong answers; touch: every
                session adds a file named after its starting branch
  --work-ms W   simulated work per session, in ms (default 0: one state per read)
  --seed S      the sim agent's seed (default 1)
  --api-key K   the key clients must send (default: FAKE_JULES_API_KEY, else "fake")
  --port P      port (default: any free one)

Prints one JSON line, {"baseUrl": …, "apiKey": …}, once listening; runs until
interrupted or its standard input closes. GET /_fake/requests lists the requests
it answered.
`;

export async function fakeJulesCommand(
  args: readonly string[],
  io: CliIo,
  signal?: AbortSignal,
): Promise<number> {
  const { values, positionals } = parseCommandArgs('fake-jules', args, {
    source: { type: 'string', multiple: true },
    agent: { type: 'string' },
    'work-ms': { type: 'string' },
    seed: { type: 'string' },
    'api-key': { type: 'string' },
    port: { type: 'string' },
    help: { type: 'boolean', short: 'h' },
  });
  if (values.help === true) {
    io.stdout(FAKE_JULES_HELP);
    return 0;
  }
  rejectPositionals('fake-jules', positionals);
  const sources = (values.source ?? []).map((spec) => {
    const match = /^([^/=\s]+)\/([^/=\s]+)=(.+)$/.exec(spec);
    if (match === null)
      throw new UsageError(`--source must be owner/repo=<git dir> (got "${spec}").`);
    return {
      owner: match[1] as string,
      repo: match[2] as string,
      gitDir: resolve(io.cwd, match[3] as string),
    };
  });
  const first = sources[0];
  if (first === undefined)
    throw new UsageError('maker fake-jules needs at least one --source owner/repo=<git dir>.');
  const agentName = values.agent ?? 'sim';
  if (agentName !== 'sim' && agentName !== 'touch')
    throw new UsageError(`--agent must be sim or touch (got "${agentName}").`);
  const seed = numberFlag('seed', values.seed, { min: 0, integer: true }) ?? 1;
  const workMs = numberFlag('work-ms', values['work-ms'], {
    min: 0,
    max: 3_600_000,
    integer: true,
  });
  const port = numberFlag('port', values.port, { min: 0, max: 65_535, integer: true });
  const apiKey = values['api-key'] ?? io.env['FAKE_JULES_API_KEY'] ?? 'fake';
  const agent =
    agentName === 'sim'
      ? simJulesAgent({ seed, gitDir: first.gitDir })
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
    ...(workMs === undefined ? {} : { workMs }),
    ...(port === undefined ? {} : { port }),
  });
  io.stdout(`${JSON.stringify({ baseUrl: fake.baseUrl, apiKey })}\n`);
  await new Promise<void>((done) => {
    signal?.addEventListener('abort', () => done(), { once: true });
    process.stdin.on('end', () => done());
    process.stdin.on('close', () => done());
    process.stdin.resume();
  });
  await fake.close();
  return 0;
}
