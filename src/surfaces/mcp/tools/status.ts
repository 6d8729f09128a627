import { z } from 'zod';
import { runResult } from '../run-result.js';
import { runIdSchema, viewInput } from '../tool-inputs.js';
import { defineTool, textOf, viewText } from './tool.js';

export const statusTool = defineTool({
  name: 'maker_status',
  description:
    'The run’s decomposition tree, progress, cost and pending questions (the latest run by default).',
  inputSchema: z.strictObject({ runId: runIdSchema.optional(), view: viewInput }),
  handler: async ({ runId, view }, runs) => {
    const { run, active, driver } = await runs.run(runId);
    const viewUrl = view === true ? await runs.viewUrl(run.id) : undefined;
    const shown = runResult(run, { active, driver }, true);
    if (viewUrl === undefined) return shown;
    return {
      content: [{ type: 'text', text: `${viewText(viewUrl).trim()}\n\n${textOf(shown)}` }],
      structuredContent: { ...shown.structuredContent, viewUrl },
    };
  },
});
