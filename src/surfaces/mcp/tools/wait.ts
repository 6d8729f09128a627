import { z } from 'zod';
import { runResult } from '../run-result.js';
import { runIdSchema } from '../tool-inputs.js';
import { defineTool } from './tool.js';

export const waitTool = defineTool({
  name: 'maker_wait',
  description:
    'Wait (at most `seconds`) until the run asks a question or ends. Pass the cursor from the previous maker_wait or maker_start so consecutive calls differ.',
  inputSchema: z.strictObject({
    runId: runIdSchema,
    cursor: z.number().int().min(0).optional().describe('The cursor the previous call returned'),
    seconds: z
      .number()
      .int()
      .min(1)
      .max(240)
      .optional()
      .describe('Longest wait (default 120, at most 240)'),
  }),
  handler: async ({ runId, cursor, seconds }, runs, extra) => {
    const progressToken = extra._meta?.progressToken;
    const run = await runs.wait(
      runId,
      seconds ?? 120,
      (event, tally) => {
        if (progressToken === undefined) return;
        const what =
          event.type === 'wait-start'
            ? `waiting for ${event.service} until ${event.until}: ${event.reason}`
            : `${event.type}${'nodeId' in event ? ` ${event.nodeId}` : ''}`;
        void extra
          .sendNotification({
            method: 'notifications/progress',
            params: {
              progressToken,
              progress: event.seq,
              message: tally === undefined ? what : `${tally} (${what})`,
            },
          })
          .catch(() => undefined);
      },
      extra.signal,
    );
    // Always past the cursor given, even when nothing happened: Gemini CLI ends a session
    // that makes the same call five times in a row, and a Jules session can be quiet that long.
    const next = Math.max(run.eventSeq, (cursor ?? 0) + 1);
    return runResult(run, await runs.run(run.id), false, next);
  },
});
