import type { RequestHandlerExtra } from '@modelcontextprotocol/sdk/shared/protocol.js';
import type {
  CallToolResult,
  ServerNotification,
  ServerRequest,
} from '@modelcontextprotocol/sdk/types.js';
import type { z } from 'zod';
import { MakerError } from '../../../core/errors.js';
import { isSystemError, systemErrorMessage } from '../../../app/system-errors.js';
import type { RunManager } from '../run-manager.js';

/**
 * What the tools need of the runs: every public member of a {@link RunManager}, or of a stand-in
 * that loads one on first use (the server binary's, so listing the tools never loads the engine).
 * A new operation on runs is written in the manager and forwarded by the stand-in; nothing here.
 */
export type Runs = Pick<RunManager, keyof RunManager>;

/** The SDK's request context: the request's abort signal, its progress token and notifications. */
export type ToolExtra = RequestHandlerExtra<ServerRequest, ServerNotification>;

/**
 * One MCP tool: its name, description and zod input schema as the client lists them, and its
 * handler. A handler may throw: the server turns the failure into an isError result (see
 * {@link messageOf}) and redacts every result before it leaves.
 */
export interface MakerTool<S extends z.ZodType> {
  readonly name: string;
  readonly description: string;
  readonly inputSchema: S;
  /** A method, so a tool of any input schema is a `MakerTool` (see {@link AnyMakerTool}). */
  handler(input: z.output<S>, runs: Runs, extra: ToolExtra): Promise<CallToolResult>;
}

/** Helps type inference: `defineTool({...})` types the handler's input from the schema. */
export function defineTool<S extends z.ZodType>(tool: MakerTool<S>): MakerTool<S> {
  return tool;
}

/** A tool of any input schema, for the list of tools. */
export type AnyMakerTool = MakerTool<z.ZodType>;

export function result(text: string, structured: Record<string, unknown>): CallToolResult {
  return { content: [{ type: 'text', text }], structuredContent: structured };
}

export function viewText(url: string | undefined): string {
  return url === undefined
    ? ''
    : ` Live view (give the person this address to open in a browser; it shows the tree as it grows, and questions can be answered there too): ${url}`;
}

export function textOf(result: CallToolResult): string {
  return result.content.map((c) => (c.type === 'text' ? c.text : '')).join('\n');
}

/** What went wrong, for a person: a MAKER error's own words; anything else says it was unexpected. */
export function messageOf(error: unknown): string {
  if (error instanceof MakerError) return error.message;
  if (isSystemError(error)) return systemErrorMessage(error, 'call maker_resume');
  return `Unexpected error: ${error instanceof Error ? error.message : String(error)}`;
}
