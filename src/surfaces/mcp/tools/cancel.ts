import { z } from 'zod';
import { runIdSchema } from '../tool-inputs.js';
import { defineTool, result } from './tool.js';

export const cancelTool = defineTool({
  name: 'maker_cancel',
  description:
    'Stop a running run (one this server drives, or one a `maker run` drives in a terminal on this machine); its state is kept and maker_resume continues it later.',
  inputSchema: z.strictObject({ runId: runIdSchema }),
  handler: async ({ runId }, runs) => {
    const { run, stopped, driver } = await runs.cancel(runId);
    const text =
      stopped === 'not-running'
        ? `Run ${runId} is not running (${run.status}): nothing to cancel.${run.status === 'running' ? ' Its maker process is gone; maker_resume continues it.' : ''}`
        : `Run ${runId} is ${run.status}${stopped === 'signalled' ? ` (${driver ?? 'its process'}, in a terminal, was asked to stop and did)` : ''}. maker_resume continues it.`;
    return result(text, { runId, status: run.status, stopped, driver: driver ?? null });
  },
});
