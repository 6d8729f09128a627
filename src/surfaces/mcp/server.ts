import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { AjvJsonSchemaValidator } from '@modelcontextprotocol/sdk/validation/ajv';
import type { jsonSchemaValidator } from '@modelcontextprotocol/sdk/validation';
import { z } from 'zod';
import { MakerError } from '../../core/errors.js';
import { LIMITS } from '../../core/limits.js';
import { estimate } from '../../core/math.js';
import type { Run } from '../../core/tree/schema.js';
import { sentences } from '../../core/text.js';
import { describeWaits, githubLines, renderTree, summarise } from '../../engine/summary.js';
import { MAX_FILE_KB } from '../candidate-allowances.js';
import { WORKER_NAMES, describeWorkers, kindsWhere } from '../worker-catalogue.js';
import type { RunManager } from './run-manager.js';

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
  // Every result passes the one redactor before it leaves the server.
  const guard = (work: () => Promise<CallToolResult>) =>
    guarded(work).then((r) => redactResult(r, runs.redact));

  server.registerTool(
    'maker_start',
    {
      description:
        'Start a MAKER run that turns an idea into committed code in a git repository. Returns a run id at once; the run works in the background. Follow it with maker_wait.',
      inputSchema: z.strictObject({
        idea: z
          .string()
          .min(1)
          .max(LIMITS.ideaChars)
          .describe('What to build, in the person’s words'),
        repo: z
          .string()
          .max(LIMITS.pathChars)
          .optional()
          .describe(
            'Repository directory, relative to the workspace (default: the workspace); created if missing',
          ),
        worker: z.enum(WORKER_NAMES).optional().describe(describeWorkers('"')),
        jules: z
          .strictObject({
            plan: z
              .enum(['free', 'pro', 'ultra'])
              .optional()
              .describe(
                'The person’s Jules plan: sessions at once 3 / 15 / 60, per 24 hours 15 / 100 / 300 (default free)',
              ),
            concurrency: z.number().int().min(1).max(100).optional(),
            dailySessions: z.number().int().min(1).max(10_000).optional(),
            planReview: z
              .boolean()
              .optional()
              .describe('Ask the person to approve or veto each Jules plan (default false)'),
            outageSeconds: z
              .number()
              .int()
              .min(1)
              .max(86_400)
              .optional()
              .describe(
                'How long Jules may fail every call before the run stops, resumable (default 600)',
              ),
          })
          .optional()
          .describe(`Only with worker ${kindsWhere((k) => k.julesDefaults !== undefined, '"')}`),
        confidence: z
          .enum(['low', 'medium', 'high'])
          .optional()
          .describe('Vote margin k = 1, 2 or 3 and matching caps (default medium)'),
        k: z.number().int().min(1).max(10).optional().describe('Override the vote margin'),
        maxDepth: z
          .number()
          .int()
          .min(0)
          .max(6)
          .optional()
          .describe('Deepest decomposition (default 3)'),
        check: z
          .string()
          .trim()
          .min(1)
          .max(LIMITS.checkChars)
          .optional()
          .describe(
            'The person’s overall check, e.g. "npm test": run once on the composed result in a sandboxed scratch checkout (needs bubblewrap) before the final question, which shows its result',
          ),
        runChecks: z
          .boolean()
          .optional()
          .describe(
            'Run each subtask’s check command (proposed by the planner) on every candidate, sandboxed; a failing check is a red flag (default false: the commands come from the model)',
          ),
        allow: z
          .strictObject({
            executables: z
              .array(z.string().min(1).max(512))
              .max(50)
              .optional()
              .describe('Paths or globs candidates may make executable'),
            symlinks: z
              .array(z.string().min(1).max(512))
              .max(50)
              .optional()
              .describe('Paths or globs where candidates may create symbolic links'),
            workflows: z
              .boolean()
              .optional()
              .describe(
                'Candidates may write CI workflows, which run with the repository’s secrets',
              ),
          })
          .optional()
          .describe('What candidates may do beyond the defaults (otherwise each is a red flag)'),
        maxFileKb: z
          .number()
          .int()
          .min(1)
          .max(MAX_FILE_KB)
          .optional()
          .describe('Largest file a candidate may write, in KiB (default 1,000,000 bytes)'),
        github: z
          .string()
          .max(140)
          .optional()
          .describe(
            'The GitHub repository to work in, "owner/name": created when missing (private unless githubPublic), cloned into an empty repo directory, or used as origin when histories agree. Node branches are pushed there, the result opens a pull request, and accepting the final veto merges it. Needs the GitHub token setting. Without it, a repository whose origin is on GitHub uses it when a token is set',
          ),
        githubPublic: z.boolean().optional().describe('Create the github repository public'),
        keepCandidates: z
          .boolean()
          .optional()
          .describe('Keep the candidate branches pushed for select questions after the vote'),
        sim: z
          .strictObject({
            seed: z.number().int().min(0).optional(),
            clarify: z
              .boolean()
              .optional()
              .describe('Ask a clarify question at the root (default true)'),
            errorRate: z.number().min(0).max(1).optional(),
            judgeAccuracy: z.number().min(0).max(1).optional(),
            flagRate: z.number().min(0).max(1).optional(),
          })
          .optional()
          .describe(
            `Only with worker ${kindsWhere((k) => k.simulated, '"')}: the simulation’s seed and rates`,
          ),
        view: viewInput,
      }),
    },
    ({ view, ...input }) =>
      guard(async () => {
        const { runId, dir, simulated, notice } = await runs.start(input);
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
    ({ runId, seconds }, extra) =>
      guard(async () => {
        const progressToken = extra._meta?.progressToken;
        const run = await runs.wait(
          runId,
          seconds ?? 120,
          (event) => {
            if (progressToken === undefined) return;
            void extra
              .sendNotification({
                method: 'notifications/progress',
                params: {
                  progressToken,
                  progress: event.seq,
                  message:
                    event.type === 'wait-start'
                      ? `waiting for ${event.service} until ${event.until}: ${event.reason}`
                      : `${event.type}${'nodeId' in event ? ` ${event.nodeId}` : ''}`,
                },
              })
              .catch(() => undefined);
          },
          extra.signal,
        );
        return runResult(run, await runs.run(run.id).then((r) => r.active));
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
        const { run, active } = await runs.run(runId);
        if (!active) await runs.resume(runId);
        return result(
          sentences(
            `Recorded ${questionId} = ${question.answer?.optionId ?? question.answer?.text}`,
            `Call maker_wait with runId="${runId}" and cursor=${run.eventSeq}`,
          ),
          { runId, questionId, answer: question.answer ?? null },
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
      }),
    },
    (input) =>
      guard(() => {
        const e = estimate(input);
        const cost =
          e.expectedCost === undefined ? '' : `, expected cost ${e.expectedCost.toFixed(2)}`;
        return Promise.resolve(
          result(
            `k_min = ${e.kMin}: P(one step right) = ${e.pSub.toPrecision(10)}, P(all right) = ${e.pFull.toPrecision(6)}, ${e.expectedDrawsPerStep.toFixed(3)} samples per step, ${Math.round(e.expectedDraws)} in all${cost}.`,
            { ...e, expectedCost: e.expectedCost ?? null },
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

const viewInput = z
  .boolean()
  .optional()
  .describe(
    'Also serve the live view: a local web page (127.0.0.1, behind a random token) of the run’s tree, votes, red flags and candidates as they happen, where the person can answer questions too. Give the person the address from the result.',
  );

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
    const message =
      error instanceof MakerError
        ? error.message
        : `Unexpected error: ${error instanceof Error ? error.message : String(error)}`;
    return { isError: true, content: [{ type: 'text', text: message }] };
  }
}

/** The text the model sees (it never sees structuredContent): status, ids, options and the next step. */
function runResult(run: Run, active: boolean, withTree = false): CallToolResult {
  const s = summarise(run);
  const id = `runId="${run.id}"`;
  const lines = [
    `${s.simulated ? 'SIMULATED run' : 'Run'} ${run.id} ("${run.idea}"): ${run.status}${active ? '' : run.status === 'running' ? ` (not running in this server: call maker_resume with ${id})` : ''}. ${s.done}/${s.nodes} nodes done, ${s.samples} samples (${s.flagged} red-flagged)${s.sessions > 0 ? `, ${s.sessions} ${run.config.worker} sessions` : ''}, ${s.questions} question(s).`,
  ];
  lines.push(...githubLines(run));
  if (run.status === 'running') lines.push(...describeWaits(run));
  if (withTree) lines.push('', renderTree(run), '');
  const pending = run.questions.filter((q) => q.answer === undefined);
  if (pending.length > 0) {
    lines.push('Pending questions — ask the person, then call maker_answer with their choice:');
    for (const q of pending) {
      lines.push(`- questionId="${q.id}" (${q.kind}): ${q.prompt}`);
      if (q.kind === 'veto' && q.context !== undefined && q.context !== '')
        lines.push(
          ...q.context
            .split('\n')
            .slice(0, 22)
            .map((l) => `    ${l}`),
        );
      for (const [i, o] of q.options.entries())
        lines.push(
          `  ${i + 1}. option "${o.id}": ${o.label}${o.detail ? ` — ${o.detail.split('\n').slice(0, 6).join(' ⏎ ')}` : ''}`,
        );
      if (q.allowText) lines.push('  (or the person’s own words)');
    }
    if (run.status === 'running')
      lines.push(`After maker_answer, call maker_wait with ${id} and cursor=${run.eventSeq}.`);
  }
  if (run.result !== undefined)
    lines.push(
      run.result.landed
        ? `Result landed on ${run.config.defaultBranch} as ${run.result.finalCommit}.`
        : `Result left on branch ${run.result.rootBranch}; ${run.config.defaultBranch} is untouched.`,
    );
  if (run.error !== undefined) lines.push(`Error: ${run.error}`);
  if (run.status === 'running' && active && pending.length === 0)
    lines.push(`Next: call maker_wait with ${id} and cursor=${run.eventSeq}.`);
  if (run.status === 'cancelled')
    lines.push(
      `The run was stopped (by maker_cancel, or because the maker server shut down, e.g. when Gemini CLI quit); everything done so far is saved. To continue it, call maker_resume with ${id}, then maker_wait.`,
    );
  if (run.status === 'failed')
    lines.push(`Once the cause is fixed, maker_resume with ${id} continues the run.`);
  return {
    content: [{ type: 'text', text: lines.join('\n') }],
    structuredContent: { ...s, cursor: run.eventSeq, active },
  };
}
