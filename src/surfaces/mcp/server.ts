import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { guardMessages } from './frame-guard.js';
import { isSystemError, systemErrorMessage } from '../../app/system-errors.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { AjvJsonSchemaValidator } from '@modelcontextprotocol/sdk/validation/ajv';
import type { jsonSchemaValidator } from '@modelcontextprotocol/sdk/validation';
import { z } from 'zod';
import { MakerError } from '../../core/errors.js';
import { LIMITS } from '../../core/limits.js';
import { describeRequests, expectedRequests, quotaVerdict } from '../../core/quota.js';
import { estimate } from '../../core/math.js';
import { sentences } from '../../core/text.js';
import type { RunManager } from './run-manager.js';
import { runResult } from './run-result.js';
import { startInput, viewInput } from './tool-inputs.js';

export const SERVER_NAME = 'maker';

/**
 * What the tools need of the runs: a {@link RunManager}, or a stand-in that loads one on first use
 * (the server binary's, so listing the tools never loads the engine).
 */
export type Runs = Pick<
  RunManager,
  'start' | 'wait' | 'run' | 'answer' | 'resume' | 'cancel' | 'viewUrl' | 'close' | 'redact'
>;

/** Run ids as the state file spells them; anything else is refused before it reaches a path or a lookup. */
const runIdSchema = z
  .string()
  .min(1)
  .max(LIMITS.idChars)
  .regex(/^[a-z0-9-]+$/, 'a run id is lower-case letters, digits and dashes');

const INSTRUCTIONS = `MAKER builds software from an idea with voting and red-flagging. Start with maker_start, then call maker_wait (passing back the cursor it returns) until the run is done. When a run has pending questions, ask the person (never answer for them) and pass their answer to maker_answer.`;

/** Builds the MCP server over a run manager. Every failure is an isError result saying what to do next. */
export function createMakerServer(runs: Runs, version: string): McpServer {
  const server = new McpServer(
    { name: SERVER_NAME, version },
    { instructions: INSTRUCTIONS, jsonSchemaValidator: lazyAjv() },
  );
  // A request carrying `__proto__` is refused as an unknown key, before the SDK's schemas drop it.
  const connect = server.connect.bind(server);
  server.connect = async (transport) => {
    await connect(transport);
    guardMessages(transport);
  };
  // Every result passes the one redactor before it leaves the server.
  const guard = (work: () => Promise<CallToolResult>) =>
    guarded(work).then((r) => redactResult(r, runs.redact));

  server.registerTool(
    'maker_start',
    {
      description:
        'Start a MAKER run that turns an idea into committed code in a git repository. Returns a run id at once; the run works in the background. Follow it with maker_wait.',
      inputSchema: startInput,
    },
    ({ view, ...input }, extra) =>
      guard(async () => {
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
      }),
  );

  server.registerTool(
    'maker_wait',
    {
      description:
        'Wait (at most `seconds`) until the run asks a question or ends. Pass the cursor from the previous maker_wait or maker_start so consecutive calls differ.',
      inputSchema: z.strictObject({
        runId: runIdSchema,
        cursor: z
          .number()
          .int()
          .min(0)
          .optional()
          .describe('The cursor the previous call returned'),
        seconds: z
          .number()
          .int()
          .min(1)
          .max(240)
          .optional()
          .describe('Longest wait (default 120, at most 240)'),
      }),
    },
    ({ runId, cursor, seconds }, extra) =>
      guard(async () => {
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
        return runResult(run, await runs.run(run.id).then((r) => r.active), false, next);
      }),
  );

  server.registerTool(
    'maker_status',
    {
      description:
        'The run’s decomposition tree, progress, cost and pending questions (the latest run by default).',
      inputSchema: z.strictObject({ runId: runIdSchema.optional(), view: viewInput }),
    },
    ({ runId, view }) =>
      guard(async () => {
        const { run, active } = await runs.run(runId);
        const viewUrl = view === true ? await runs.viewUrl(run.id) : undefined;
        const shown = runResult(run, active, true);
        if (viewUrl === undefined) return shown;
        return {
          content: [{ type: 'text', text: `${viewText(viewUrl).trim()}\n\n${textOf(shown)}` }],
          structuredContent: { ...shown.structuredContent, viewUrl },
        };
      }),
  );

  server.registerTool(
    'maker_answer',
    {
      description:
        'Record the person’s answer to a pending question: an option id (or its number), or their own words for a clarify question. Only pass what the person chose.',
      inputSchema: z.strictObject({
        runId: runIdSchema,
        questionId: z.string().min(1).max(LIMITS.idChars),
        answer: z.string().min(1).max(LIMITS.answerChars),
      }),
    },
    ({ runId, questionId, answer }) =>
      guard(async () => {
        const question = await runs.answer(runId, questionId, answer);
        const recorded = `Recorded ${questionId} = ${question.answer?.optionId ?? question.answer?.text}`;
        const structured = { runId, questionId, answer: question.answer ?? null };
        const { run, active } = await runs.run(runId);
        // The answer is saved whatever happens next: a run that cannot go on yet says why.
        const blocked = active
          ? undefined
          : await runs.resume(runId).then(
              () => undefined,
              (error: unknown) => messageOf(error).replace(/\nThe run was not changed\.$/, ''),
            );
        if (blocked !== undefined)
          return result(
            `${recorded} (saved). The run cannot go on yet, so it stays stopped:\n${blocked}\nTell the person what is missing; once it is fixed, call maker_resume with runId="${runId}".`,
            { ...structured, resumed: false },
          );
        return result(
          sentences(recorded, `Call maker_wait with runId="${runId}" and cursor=${run.eventSeq}`),
          structured,
        );
      }),
  );

  server.registerTool(
    'maker_resume',
    {
      description:
        'Continue an unfinished run from maker-state.json (after Gemini CLI or this server restarted). The latest unfinished run by default.',
      inputSchema: z.strictObject({ runId: runIdSchema.optional() }),
    },
    ({ runId }) =>
      guard(async () => {
        const resumed = await runs.resume(runId);
        // The status now that it is running again (or what stopped it at once).
        const { run, active } = await runs.run(resumed.id);
        const shown = runResult(run, active);
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
      }),
  );

  server.registerTool(
    'maker_cancel',
    {
      description: 'Stop a running run; its state is kept and maker_resume continues it later.',
      inputSchema: z.strictObject({ runId: runIdSchema }),
    },
    ({ runId }) =>
      guard(async () => {
        const run = await runs.cancel(runId);
        return result(`Run ${runId} is ${run.status}. maker_resume continues it.`, {
          runId,
          status: run.status,
        });
      }),
  );

  server.registerTool(
    'maker_estimate',
    {
      description:
        'The MAKER paper’s scaling laws: the vote margin k needed for a target success rate, and the expected samples and cost.',
      inputSchema: z.strictObject({
        p: z.number().gt(0).max(1).describe('Per-step success probability of one sample'),
        steps: z.number().int().min(1),
        target: z.number().gt(0).lt(1).describe('Wanted probability that every step is right'),
        v: z.number().gt(0).max(1).optional().describe('Share of samples that pass red-flagging'),
        m: z.number().int().min(1).optional(),
        costPerSample: z.number().min(0).optional(),
        modelAccess: z
          .enum(['key', 'vertex', 'gemini-cli'])
          .optional()
          .describe('Compare the run’s model requests with the daily limit of this access'),
        dailyLimit: z
          .number()
          .int()
          .min(1)
          .optional()
          .describe('Compare the run’s model requests with this daily limit instead'),
      }),
    },
    ({ modelAccess, dailyLimit, ...input }) =>
      guard(() => {
        const e = estimate(input);
        const requests = expectedRequests({
          subtasks: input.steps / (input.m ?? 1),
          k: e.kMin,
          p: input.p,
        });
        const verdict = quotaVerdict(requests.total, modelAccess, dailyLimit);
        const cost =
          e.expectedCost === undefined ? '' : `, expected cost ${e.expectedCost.toFixed(2)}`;
        return Promise.resolve(
          result(
            `k_min = ${e.kMin}: P(one step right) = ${e.pSub.toPrecision(10)}, P(all right) = ${e.pFull.toPrecision(6)}, ${e.expectedDrawsPerStep.toFixed(3)} samples per step, ${Math.round(e.expectedDraws)} in all${cost}. As a MAKER run: ${describeRequests(requests, verdict)}${verdict.overHalf ? ' — more than half of a day’s requests: ask the person before starting it' : ''}.`,
            {
              ...e,
              expectedCost: e.expectedCost ?? null,
              requests: {
                ...requests,
                dailyLimit: verdict.limit ?? null,
                overHalf: verdict.overHalf,
              },
            },
          ),
        );
      }),
  );

  return server;
}

/**
 * The SDK's JSON Schema validator (Ajv, used only to check elicitation answers), made on first use:
 * the SDK's default builds it in the server's constructor, a cost every cold start paid.
 */
function lazyAjv(): jsonSchemaValidator {
  let ajv: AjvJsonSchemaValidator | undefined;
  return { getValidator: (schema) => (ajv ??= new AjvJsonSchemaValidator()).getValidator(schema) };
}

function viewText(url: string | undefined): string {
  return url === undefined
    ? ''
    : ` Live view (give the person this address to open in a browser; it shows the tree as it grows, and questions can be answered there too): ${url}`;
}

function textOf(result: CallToolResult): string {
  return result.content.map((c) => (c.type === 'text' ? c.text : '')).join('\n');
}

function result(text: string, structured: Record<string, unknown>): CallToolResult {
  return { content: [{ type: 'text', text }], structuredContent: structured };
}

function redactResult(result: CallToolResult, redact: (text: string) => string): CallToolResult {
  return {
    ...result,
    content: result.content.map((c) => (c.type === 'text' ? { ...c, text: redact(c.text) } : c)),
    ...(result.structuredContent === undefined
      ? {}
      : {
          structuredContent: JSON.parse(redact(JSON.stringify(result.structuredContent))) as Record<
            string,
            unknown
          >,
        }),
  };
}

/** Turns failures into isError results a person (or the model) can act on. Programming errors still say what happened. */
async function guarded(work: () => Promise<CallToolResult>): Promise<CallToolResult> {
  try {
    return await work();
  } catch (error) {
    return { isError: true, content: [{ type: 'text', text: messageOf(error) }] };
  }
}

/** What went wrong, for a person: a MAKER error's own words; anything else says it was unexpected. */
function messageOf(error: unknown): string {
  if (error instanceof MakerError) return error.message;
  if (isSystemError(error)) return systemErrorMessage(error, 'call maker_resume');
  return `Unexpected error: ${error instanceof Error ? error.message : String(error)}`;
}
