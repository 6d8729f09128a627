import { findSandbox } from '../../../adapters/sandbox/bwrap.js';
import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { demoGitHub } from '../demo-github.js';
import { WORKERS } from '../../workers.js';
import { defined, start } from './run-drive.js';
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
  const sandboxed =
    (await findSandbox(ctx.io.env['PATH'] ?? '', ctx.io.env['MAKER_SANDBOX'])) !== undefined;
  if (!sandboxed && !o.json)
    ctx.io.stderr(
      'maker: no sandbox works on this machine (bubblewrap or unshare), so the demo runs no checks: its result is UNVERIFIED.\n',
    );
  const github = o.localOnly === true ? undefined : await demoGitHub(ctx.io.env, dir);
  if (github !== undefined && !o.json) ctx.io.stderr(`maker: ${github.said}\n`);
  try {
    return await start(
      { ...ctx, io: { ...ctx.io, env: github?.env ?? ctx.io.env } },
      {
        idea: args[0] ?? 'a command-line tool that converts CSV files to JSON',
        dir,
        kind: WORKERS[o.worker ?? 'sim'],
        hitlChoice: view ? 'view' : 'auto',
        json: o.json === true,
        demo: true,
        view,
        paceMs: o.pace ?? 0,
        ...(github === undefined
          ? {}
          : {
              github: github.ask,
              sourceGitDir: github.sourceGitDir,
              demoFake: github.kept,
            }),
        choices: {
          hitl: view ? 'wait' : 'auto',
          sim: { clarify: true },
          runChecks: sandboxed,
          ...defined({ seed: o.seed }),
        },
      },
    );
  } finally {
    await github?.close();
  }
}
