import { resolve } from 'node:path';
import { makeRedactor, UsageError } from '../../../core/errors.js';
import { withDiffs } from '../../../app/read-runs.js';
import { FileSource } from '../../view/file-source.js';
import { startViewServer } from '../../view/server.js';
import { secretsOf } from '../../../app/env.js';
import { INTERRUPTED_EXIT } from './common.js';
import type { viewCommand } from './view.js';
import type { CliContext, InputOf } from '../define.js';

/** `maker view`, loaded when it runs (see view.ts for its options and help). */
export async function run(
  { options: o }: InputOf<typeof viewCommand>,
  { io, signal }: CliContext,
): Promise<number> {
  const dir = resolve(o.dir ?? io.cwd);
  const secrets = secretsOf(io.env);
  return withDiffs(dir, async (diff) => {
    const source = await FileSource.open({ dir, secrets, diff });
    const runs = (await source.state()).runs;
    if (o.run !== undefined && runs[o.run] === undefined) {
      await source.close();
      throw new UsageError(
        `No run "${o.run}" in ${dir}. Runs: ${Object.keys(runs).join(', ') || 'none'}.`,
      );
    }
    const view = await startViewServer({
      source,
      runId: o.run,
      ...(o.port === undefined ? {} : { port: o.port }),
      redact: makeRedactor(secrets),
    });
    io.stdout(`${view.url}\n`);
    io.stderr(
      Object.keys(runs).length === 0
        ? `maker: no run in ${dir} yet: the page waits for one. Ctrl-C to stop.\n`
        : `maker: serving the view of ${dir}. Ctrl-C to stop.\n`,
    );
    await new Promise<void>((done) => {
      if (signal === undefined || signal.aborted) done();
      else signal.addEventListener('abort', () => done(), { once: true });
    });
    await view.close();
    return INTERRUPTED_EXIT[0];
  });
}
