import { request } from 'node:http';

export interface Reply {
  readonly status: number;
  readonly headers: Record<string, string | string[] | undefined>;
  readonly body: string;
}

/** One HTTP request to 127.0.0.1:`port` with exactly these headers (Host included, which fetch cannot set). */
export function http(
  port: number,
  path: string,
  options: { method?: string; headers?: Record<string, string>; body?: string } = {},
): Promise<Reply> {
  return new Promise((resolve, reject) => {
    const req = request(
      {
        host: '127.0.0.1',
        port,
        path,
        agent: false,
        method: options.method ?? 'GET',
        headers: { host: `127.0.0.1:${port}`, ...options.headers },
      },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () =>
          resolve({
            status: res.statusCode ?? 0,
            headers: res.headers,
            body: Buffer.concat(chunks).toString('utf8'),
          }),
        );
        res.on('error', reject);
      },
    );
    req.on('error', reject);
    req.end(options.body);
  });
}

/**
 * Reads a server-sent event stream until `until` accepts an event; resolves with every event read.
 * A test helper only: the page itself uses the browser's EventSource.
 */
export function readEvents(
  port: number,
  path: string,
  until: (event: { event: string; data: unknown }) => boolean,
): { events: Promise<{ event: string; data: unknown }[]>; close: () => void } {
  let close = () => undefined as void;
  const events = new Promise<{ event: string; data: unknown }[]>((resolve, reject) => {
    const seen: { event: string; data: unknown }[] = [];
    const req = request(
      { host: '127.0.0.1', port, path, agent: false, headers: { host: `127.0.0.1:${port}` } },
      (res) => {
        let buffer = '';
        res.setEncoding('utf8');
        res.on('data', (chunk: string) => {
          buffer += chunk;
          let end;
          while ((end = buffer.indexOf('\n\n')) >= 0) {
            const block = buffer.slice(0, end);
            buffer = buffer.slice(end + 2);
            const event = /^event: (.*)$/m.exec(block)?.[1];
            const data = /^data: (.*)$/m.exec(block)?.[1];
            if (event === undefined || data === undefined) continue;
            const parsed = { event, data: JSON.parse(data) as unknown };
            seen.push(parsed);
            if (until(parsed)) {
              req.destroy();
              resolve(seen);
            }
          }
        });
        res.on('end', () => resolve(seen));
      },
    );
    req.on('error', (error) => (req.destroyed ? undefined : reject(error)));
    close = () => void req.destroy();
    req.end();
  });
  return { events, close };
}
