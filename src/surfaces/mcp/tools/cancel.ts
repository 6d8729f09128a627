import { z } from 'zod';
import { runIdSchema } from '../tool-inputs.js';
import { defineTool, result } from './tool.js';

export const cancelTool = defineTool({
  name: 'maker_cancel',
  description: 'Stop a running run; its state is kept and maker_resume continues it later.',
  inputSchema: z.strictObject({ runId: runIdSchema }),
  handler: async ({ runId }, runs) => {
    const run = await runs.cancel(runId);
    return result(`Run ${runId} is ${run.status}. maker_resume continues it.`, {
      runId,
      status: run.status,
    });
  },
});
