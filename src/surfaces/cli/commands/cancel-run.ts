import { resolve } from 'node:path';
import { cancelRun, type Cancelled } from '../../../app/cancel-run.js';
import { existingDirectory } from './common.js';
import type { cancelCommand } from './cancel.js';
import type { CliContext, InputOf } from '../define.js';

/** `maker cancel`, loaded when it runs (see cancel.ts for its options and help). */
export async function run(
  { options: o }: InputOf<typeof cancelCommand>,
  { io }: CliContext,
): Promise<number> {
  const dir = resolve(o.dir ?? io.cwd);
  await existingDirectory(dir, o.dir !== undefined);
  const waitMs = (o.wait ?? 60) * 1000;
  const done = await cancelRun(dir, {
    runId: o.run,
    waitMs,
    onSignalled: (driver) => {
      if (o.json !== true)
        io.stderr(
          `maker: asked ${driver} to stop (SIGINT, as Ctrl-C); waiting up to ${waitMs / 1000} s for it to save the run…\n`,
        );
    },
  });
  if (o.json === true)
    io.stdout(
      `${JSON.stringify({ runId: done.run.id, status: done.run.status, stopped: done.stopped, driver: done.driver ?? null })}\n`,
    );
  else io.stdout(`${cancelledText(done, dir)}\n`);
  return 0;
}

function cancelledText({ run, stopped, driver }: Cancelled, dir: string): string {
  const resume = `maker resume --dir ${dir} --run ${run.id}`;
  if (stopped === 'not-running')
    return run.status === 'running'
      ? `Run ${run.id} is not running: its maker process is gone (interrupted; nothing is lost). Nothing to cancel. Continue it with: ${resume}`
      : `Run ${run.id} is not running (${run.status}): nothing to cancel.`;
  return run.status === 'cancelled'
    ? `Run ${run.id} is cancelled: ${driver ?? 'its process'} stopped and saved it. Continue it with: ${resume}`
    : `${driver ?? 'Its process'} stopped; run ${run.id} is ${run.status} (it ended as it was being asked to stop).`;
}
