import { spawn } from 'node:child_process';
import type { IncomingMessage, ServerResponse } from 'node:http';

/**
 * git's smart HTTP protocol through `git http-backend`, run as a CGI program per request: the
 * request's method, path and query go in through the environment, its body through stdin; the
 * program's CGI headers (`Status:` and the rest) are parsed off its stdout and the remainder
 * streamed back. Resolves with the HTTP status it answered.
 */
export function serveGitHttp(
  req: IncomingMessage,
  res: ServerResponse,
  options: {
    projectRoot: string;
    pathInfo: string;
    query: string;
    remoteUser: string;
    /** Runs once git is done, before the answer ends (a push's effects are visible to the pusher). */
    beforeEnd?: () => Promise<void>;
  },
): Promise<number> {
  const header = (name: string) => {
    const value = req.headers[name];
    return typeof value === 'string' ? value : undefined;
  };
  const env: Record<string, string> = {
    PATH: process.env['PATH'] ?? '/usr/bin:/bin',
    GIT_PROJECT_ROOT: options.projectRoot,
    GIT_HTTP_EXPORT_ALL: '1',
    PATH_INFO: options.pathInfo,
    QUERY_STRING: options.query,
    REQUEST_METHOD: req.method ?? 'GET',
    CONTENT_TYPE: header('content-type') ?? '',
    REMOTE_USER: options.remoteUser,
    REMOTE_ADDR: '127.0.0.1',
    GATEWAY_INTERFACE: 'CGI/1.1',
  };
  const length = header('content-length');
  if (length !== undefined) env['CONTENT_LENGTH'] = length;
  const encoding = header('content-encoding');
  if (encoding !== undefined) env['HTTP_CONTENT_ENCODING'] = encoding;
  const protocol = header('git-protocol');
  if (protocol !== undefined) env['GIT_PROTOCOL'] = protocol;

  return new Promise((resolve, reject) => {
    const child = spawn('git', ['http-backend'], { env, stdio: ['pipe', 'pipe', 'pipe'] });
    let head = Buffer.alloc(0);
    let status = 200;
    let headersDone = false;
    let stderr = '';
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString('utf8')));
    child.stdout.on('data', (chunk: Buffer) => {
      if (headersDone) {
        res.write(chunk);
        return;
      }
      head = Buffer.concat([head, chunk]);
      const end = head.indexOf('\r\n\r\n');
      const lfEnd = head.indexOf('\n\n');
      const cut = end !== -1 ? end : lfEnd;
      if (cut === -1) return;
      const sepLength = end !== -1 ? 4 : 2;
      const headers: Record<string, string> = {};
      for (const line of head.subarray(0, cut).toString('latin1').split(/\r?\n/)) {
        const colon = line.indexOf(':');
        if (colon === -1) continue;
        const name = line.slice(0, colon).trim();
        const value = line.slice(colon + 1).trim();
        if (name.toLowerCase() === 'status') status = Number.parseInt(value, 10) || 500;
        else headers[name] = value;
      }
      headersDone = true;
      res.writeHead(status, headers);
      res.write(head.subarray(cut + sepLength));
    });
    child.on('error', reject);
    child.on('close', (code) => {
      if (!headersDone) {
        status = 500;
        res.writeHead(500, { 'content-type': 'text/plain' });
        res.write(`git http-backend failed (${code}): ${stderr}`);
      }
      void (options.beforeEnd?.() ?? Promise.resolve())
        .catch(() => undefined)
        .finally(() => {
          res.end();
          resolve(status);
        });
    });
    req.pipe(child.stdin);
    child.stdin.on('error', () => undefined);
  });
}
