import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import type { JSONRPCMessage } from '@modelcontextprotocol/sdk/types.js';

/** Keys an argument object may never carry: they would reach an object's prototype, not a field. */
const FORBIDDEN_KEYS = ['__proto__'];

/** The first forbidden own key anywhere in `value` (depth-bounded), or undefined. */
export function forbiddenKey(value: unknown, depth = 0): string | undefined {
  if (depth > 64 || typeof value !== 'object' || value === null) return undefined;
  if (Array.isArray(value)) {
    for (const item of value) {
      const found = forbiddenKey(item, depth + 1);
      if (found !== undefined) return found;
    }
    return undefined;
  }
  for (const key of Object.keys(value)) {
    if (FORBIDDEN_KEYS.includes(key)) return key;
    const found = forbiddenKey((value as Record<string, unknown>)[key], depth + 1);
    if (found !== undefined) return found;
  }
  return undefined;
}

/**
 * A message carrying a forbidden key, refused as an unknown key is: `answer` is what a request gets
 * (a tool call an isError result in zod's words for an unknown key; anything else a -32602 error),
 * none for a notification (dropped). Undefined when the message is fine. Must see the message
 * before any schema parses it (which would drop the key silently, by assigning it).
 */
export function refusalOf(message: unknown): { answer?: JSONRPCMessage } | undefined {
  if (typeof message !== 'object' || message === null) return undefined;
  const { id, method, params } = message as { id?: unknown; method?: unknown; params?: unknown };
  const key = forbiddenKey(params);
  if (key === undefined) return undefined;
  if (typeof id !== 'string' && typeof id !== 'number') return {};
  const tool = (params as { name?: unknown }).name;
  const text = `MCP error -32602: Input validation error: Invalid arguments${typeof tool === 'string' ? ` for tool ${tool}` : ''}: Unrecognized key: "${key}"`;
  return {
    answer:
      method === 'tools/call'
        ? { jsonrpc: '2.0', id, result: { content: [{ type: 'text', text }], isError: true } }
        : { jsonrpc: '2.0', id, error: { code: -32602, message: text } },
  };
}

/**
 * Puts {@link refusalOf} in front of a connected transport's message handler: a refused request is
 * answered on the transport and never reaches the server.
 */
export function guardMessages(transport: Transport): void {
  const inner = transport.onmessage;
  if (inner === undefined) return;
  transport.onmessage = (message, extra) => {
    const refusal = refusalOf(message);
    if (refusal === undefined) return inner(message, extra);
    if (refusal.answer !== undefined) void transport.send(refusal.answer).catch(() => undefined);
  };
}
