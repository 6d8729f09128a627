import { resolve } from 'node:path';
import { UsageError } from '../../../core/errors.js';
import { startFakeJules, type FakeAgentScript } from '../../../offline/fake-jules.js';
import { simJulesAgent } from '../../../offline/sim-jules-agent.js';
import { listening, untilStopped } from './serve.js';
import type { fakeJulesCommand } from './fake-jules.js';
import type { CliContext, InputOf } from '../define.js';

/** `maker fake jules`, loaded when it runs (see fake-jules.ts for its options and help). */
export async function run(
  { options: o }: InputOf<typeof fakeJulesCommand>,
  { io, signal }: CliContext,
): Promise<number> {
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
  const fake = await listening(o.port, () =>
    startFakeJules({
      apiKey,
      sources,
      agent,
      ...(o.workMs === undefined ? {} : { workMs: o.workMs }),
      ...(o.port === undefined ? {} : { port: o.port }),
    }),
  );
  io.stdout(`${JSON.stringify({ baseUrl: fake.baseUrl, apiKey })}\n`);
  await untilStopped(signal, o.stdinLifetime === true);
  await fake.close();
  return 0;
}
