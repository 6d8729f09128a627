import { resolve } from 'node:path';
import { CHECK_TIMEOUT_MS } from '../../../core/checks.js';
import { ConfigError, MakerError, UsageError } from '../../../core/errors.js';
import { sandboxOrWhyNot, sandboxSettingProblem } from '../../../app/sandbox-report.js';
import { readSettings } from '../../../app/settings.js';
import { openWorkspace } from '../../../app/wiring/wiring.js';
import type { CliContext, InputOf } from '../define.js';
import { existingDirectory } from './common.js';
import type { sandboxCommand } from './sandbox.js';

/** `maker sandbox`, loaded when it runs (see sandbox.ts for its options and help). */
export async function run(
  { args, options: o }: InputOf<typeof sandboxCommand>,
  { io, signal }: CliContext,
): Promise<number> {
  const command = args[0] ?? '';
  if (command.trim() === '')
    throw new UsageError('maker sandbox needs a command: maker sandbox "npm test"');
  const settings = readSettings(io.env);
  const { sandbox } = settings;
  const problem = sandboxSettingProblem(sandbox);
  if (problem !== undefined) throw new ConfigError(`${problem} Nothing ran.`);
  const dir = resolve(o.dir ?? '.');
  await existingDirectory(dir, o.dir !== undefined);
  const workspace = await openWorkspace(dir, false, settings);
  try {
    const rev = o.rev ?? 'HEAD';
    const tree = await workspace.resolve(rev);
    if (tree === undefined) throw new UsageError(`--rev ${rev} names no commit in ${dir}.`);
    const install = o.install === undefined ? undefined : o.install === 'none' ? '' : o.install;
    let result: { ok: boolean; output: string };
    try {
      result = await workspace.runCheck(tree, command, CHECK_TIMEOUT_MS, signal, { install });
    } catch (error) {
      if (error instanceof MakerError && error.code === 'no-sandbox') {
        const found = await sandboxOrWhyNot(sandbox);
        io.stderr(
          `maker: ${found.name === undefined ? found.reason : error.message}: nothing ran.\n`,
        );
        return 3;
      }
      throw error;
    }
    if (o.json === true) io.stdout(`${JSON.stringify({ rev, ...result })}\n`);
    else
      io.stdout(
        result.output.endsWith('\n') || result.output === '' ? result.output : `${result.output}\n`,
      );
    return result.ok ? 0 : 1;
  } finally {
    await workspace.close();
  }
}
