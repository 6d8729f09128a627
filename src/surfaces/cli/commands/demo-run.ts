import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { demoGitHub } from '../demo-github.js';
import { WORKERS } from '../../../app/workers/index.js';
import { sandboxOrWhyNot } from '../../../app/sandbox-report.js';
import { readSettings } from '../../../app/settings.js';
import { defined } from './run-drive.js';
import { start } from './run-start.js';
import { pendingStart } from '../../../app/start/start-intent.js';
import type { demoCommand } from './demo.js';
import type { CliContext, InputOf } from '../define.js';

/** `maker demo`, loaded when it runs (see demo.ts for its options and help). */
export async function run(
  { args, options: o }: InputOf<typeof demoCommand>,
  ctx: CliContext,
): Promise<number> {
  const view = o.view === true;
  const dir = resolve(o.dir ?? (await mkdtemp(join(tmpdir(), 'maker-demo-'))));
  // Its checks run where a sandbox works; elsewhere the demo goes on without them, unverified
  // (a run would stop before landing: --hitl auto lands only a checked result).
  const settings = readSettings(ctx.io.env, {}, ctx.io.secrets);
  const sandbox = await sandboxOrWhyNot(settings.sandbox);
  const sandboxed = sandbox.name !== undefined;
  if (sandbox.name === undefined && !o.json)
    ctx.io.stderr(
      `maker: ${sandbox.reason}, so the demo runs no checks: its result is UNVERIFIED.\n`,
    );
  const github = o.localOnly === true ? undefined : demoGitHub(settings, dir);
  // A demo a kill interrupted while it started is finished by the same command (as by `maker resume`).
  const pending = await pendingStart(dir);
  const resuming = pending?.command === 'demo' ? pending : undefined;
  if (resuming !== undefined && !o.json)
    ctx.io.stderr(
      `maker: finishing demo run ${resuming.id}, which was interrupted (Ctrl-C or a kill) while it started (\`maker resume\` does the same).\n`,
    );
  return start(ctx, {
    idea: args[0] ?? 'a command-line tool that converts CSV files to JSON',
    dir,
    kind: WORKERS[o.worker ?? 'sim'],
    settings,
    hitlChoice: view ? 'view' : 'auto',
    json: o.json === true,
    demo: true,
    view,
    paceMs: o.pace ?? 0,
    ...(resuming === undefined ? {} : { resuming }),
    ...(github === undefined
      ? {}
      : { github: github.ask, serveGitHub: github.serve, intentGitHub: github.intent }),
    choices: {
      hitl: view ? 'wait' : 'auto',
      sim: { clarify: true },
      runChecks: sandboxed,
      ...defined({ seed: o.seed }),
    },
  });
}
