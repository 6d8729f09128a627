import { z } from 'zod';
import { runResult } from '../run-result.js';
import { runIdSchema } from '../tool-inputs.js';
import { defineTool } from './tool.js';

export const resumeTool = defineTool({
  name: 'maker_resume',
  description:
    'Continue an unfinished run from maker-state.json (after Gemini CLI or this server restarted), or finish a start that was interrupted. The latest unfinished run by default.',
  inputSchema: z.strictObject({ runId: runIdSchema.optional() }),
  handler: async ({ runId }, runs) => {
    const resumed = await runs.resume(runId);
    // The status now that it is running again (or what stopped it at once).
    const { run, active, driver } = await runs.run(resumed.id);
    const shown = runResult(run, { active, driver });
    const first = shown.content[0];
    return {
      ...shown,
      content: [
        {
          type: 'text',
          text: `Resumed run ${run.id}.\n${first?.type === 'text' ? first.text : ''}`,
        },
      ],
    };
  },
});
