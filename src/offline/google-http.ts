import type { IncomingMessage, ServerResponse } from 'node:http';

/** What the local fakes of Google APIs share: JSON replies, the error envelope, request bodies. */

const STATUS_NAMES: Readonly<Record<number, string>> = {
  400: 'INVALID_ARGUMENT',
  401: 'UNAUTHENTICATED',
  403: 'PERMISSION_DENIED',
  404: 'NOT_FOUND',
  429: 'RESOURCE_EXHAUSTED',
  500: 'INTERNAL',
  503: 'UNAVAILABLE',
};

/**
 * Google's error envelope: `{error: {code, message, status[, details]}}`, with a `BadRequest` detail
 * for field violations and any other details (`QuotaFailure`, `RetryInfo`, …) as given.
 */
export function errorEnvelope(
  status: number,
  message: string,
  violations: readonly { field: string; description: string }[] = [],
  extraDetails: readonly Record<string, unknown>[] = [],
) {
  const details = [
    ...(violations.length === 0
      ? []
      : [{ '@type': 'type.googleapis.com/google.rpc.BadRequest', fieldViolations: violations }]),
    ...extraDetails,
  ];
  return {
    error: {
      code: status,
      message,
      status: STATUS_NAMES[status] ?? 'UNKNOWN',
      ...(details.length === 0 ? {} : { details }),
    },
  };
}

export function sendJson(
  res: ServerResponse,
  status: number,
  body: unknown,
  headers: Readonly<Record<string, string>> = {},
): void {
  res.writeHead(status, { 'content-type': 'application/json; charset=UTF-8', ...headers });
  res.end(JSON.stringify(body));
}

export function readBody(req: IncomingMessage): Promise<string> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => resolve(Buffer.concat(chunks).toString('utf8')));
    req.on('error', reject);
  });
}
