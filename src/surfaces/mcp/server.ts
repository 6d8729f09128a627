import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { AjvJsonSchemaValidator } from '@modelcontextprotocol/sdk/validation/ajv';
import type { jsonSchemaValidator } from '@modelcontextprotocol/sdk/validation';
import { guardMessages } from './frame-guard.js';
import { TOOLS } from './tools/index.js';
import { messageOf, type Runs, type ToolExtra } from './tools/tool.js';

export type { Runs } from './tools/tool.js';

export const SERVER_NAME = 'maker';

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
  for (const tool of TOOLS)
    server.registerTool(
      tool.name,
      { description: tool.description, inputSchema: tool.inputSchema },
      // Every result passes the one redactor before it leaves the server.
      (input: unknown, extra: ToolExtra) =>
        guarded(() => tool.handler(input, runs, extra)).then((r) => redactResult(r, runs.redact)),
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
