import type { ServerResponse } from 'node:http';

/** A REST answer as data, so faults can replace or drop it after the route has done its work. */
export interface Reply {
  readonly status: number;
  readonly body?: unknown;
  readonly headers?: Readonly<Record<string, string>>;
}

const DOCS = 'https://docs.github.com/rest';

/** GitHub's basic-error body: `{message, documentation_url, status}`. */
export function errorReply(
  status: number,
  message: string,
  options: { docs?: string; headers?: Readonly<Record<string, string>> } = {},
): Reply {
  return {
    status,
    body: { message, documentation_url: options.docs ?? DOCS, status: String(status) },
    ...(options.headers === undefined ? {} : { headers: options.headers }),
  };
}

/** GitHub's validation-error body: 422 with `errors[]`. */
export function validationReply(
  errors: readonly {
    resource: string;
    code: string;
    field?: string;
    message?: string;
  }[],
  message = 'Validation Failed',
  docs?: string,
): Reply {
  return {
    status: 422,
    body: { message, errors, documentation_url: docs ?? DOCS, status: '422' },
  };
}

export const notFound = (): Reply => errorReply(404, 'Not Found');

export function json(status: number, body: unknown, headers?: Record<string, string>): Reply {
  return { status, body, ...(headers === undefined ? {} : { headers }) };
}

export function send(res: ServerResponse, reply: Reply, extra: Record<string, string>): void {
  const headers: Record<string, string> = { ...extra, ...reply.headers };
  if (reply.body === undefined) {
    res.writeHead(reply.status, headers);
    res.end();
    return;
  }
  res.writeHead(reply.status, { 'content-type': 'application/json; charset=utf-8', ...headers });
  res.end(JSON.stringify(reply.body));
}

/** `per_page` (default 30, at most 100) and `page` (from 1), with GitHub's `Link` header. */
export function paginate<T>(
  items: readonly T[],
  query: URLSearchParams,
  url: string,
): { items: T[]; headers: Record<string, string> } {
  const perPage = Math.min(100, Math.max(1, Number(query.get('per_page') ?? 30) || 30));
  const page = Math.max(1, Number(query.get('page') ?? 1) || 1);
  const last = Math.max(1, Math.ceil(items.length / perPage));
  const slice = items.slice((page - 1) * perPage, page * perPage);
  const link = (p: number, rel: string) => {
    const q = new URLSearchParams(query);
    q.set('page', String(p));
    return `<${url}?${q.toString()}>; rel="${rel}"`;
  };
  const links: string[] = [];
  if (page < last) links.push(link(page + 1, 'next'), link(last, 'last'));
  if (page > 1) links.push(link(1, 'first'), link(page - 1, 'prev'));
  return { items: slice, headers: links.length === 0 ? {} : { link: links.join(', ') } };
}
