import { startInput } from '../tool-inputs.js';
import { result, viewText, defineTool } from './tool.js';

export const startTool = defineTool({
  name: 'maker_start',
  description:
    'Start a MAKER run that turns an idea into committed code in a git repository. Returns a run id at once; the run works in the background. Follow it with maker_wait.',
  inputSchema: startInput,
  handler: async ({ view, ...input }, runs, extra) => {
    // A cancelled request (notifications/cancelled) ends the start's checks at once.
    const { runId, dir, simulated, notice } = await runs.start(input, extra.signal);
    const viewUrl = view === true ? await runs.viewUrl(runId) : undefined;
    return result(
      `Started run ${runId} in ${dir}${simulated ? ' (SIMULATED: placeholder plans and files, not real work)' : ''}.${notice === undefined ? '' : ` Note: ${notice}`}${viewText(viewUrl)} Now call maker_wait with runId="${runId}" and cursor=0.`,
      {
        runId,
        dir,
        status: 'running',
        simulated,
        notice: notice ?? null,
        ...(viewUrl === undefined ? {} : { viewUrl }),
      },
    );
  },
});
