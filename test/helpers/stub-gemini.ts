import { chmod, mkdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';

/**
 * A stand-in `gemini` executable for tests of MAKER's Gemini CLI access: a small Node script that
 * logs how it was started and every message it got, and answers as the real one does —
 * `--acp`: JSON-RPC over stdio, one session per `session/new`, prompts held until `release` exists
 * in its directory (or cancelled by `session/cancel`); `-p`: one JSON answer with stats. `exit`
 * makes it exit with that code at once (41: not signed in), `noAcp` refuses `--acp` as an old
 * `gemini` would.
 */
export interface StubGemini {
  /** The directory holding `gemini` (put it first on the PATH). */
  readonly bin: string;
  readonly path: string;
  /** Everything it logged: `{start: {args, cwd, env}}` per process, `{in: message}` per message. */
  log(): Promise<StubEntry[]>;
  /** Lets every held prompt answer. */
  release(): Promise<void>;
}

export interface StubEntry {
  readonly start?: { args: string[]; cwd: string; env: Record<string, string> };
  readonly in?: { method?: string; params?: Record<string, unknown>; id?: number };
  readonly inFlight?: number;
  readonly read?: string;
}

const SCRIPT = String.raw`
const fs = require('node:fs');
const path = require('node:path');
const dir = __dirname;
const opts = JSON.parse(fs.readFileSync(path.join(dir, 'stub.json'), 'utf8'));
const log = (entry) => fs.appendFileSync(path.join(dir, 'log.jsonl'), JSON.stringify(entry) + '\n');
const args = process.argv.slice(2);
const env = {};
for (const k of ['GEMINI_SYSTEM_MD', 'GEMINI_CLI_TRUST_WORKSPACE', 'GEMINI_CLI', 'HOME']) if (process.env[k] !== undefined) env[k] = process.env[k];
log({ start: { args, cwd: process.cwd(), env } });
for (const f of opts.read ?? []) { try { fs.readFileSync(f); log({ read: f }); } catch {} }
if (opts.exit !== undefined) { process.stderr.write('stub: exiting ' + opts.exit + '\n'); process.exit(opts.exit); }
const released = () => fs.existsSync(path.join(dir, 'release'));
/** Answers a prompt from the model at GOOGLE_GEMINI_BASE_URL (a local fake), as the real one would. */
function proxy(m) {
  const send = (msg) => process.stdout.write(JSON.stringify(msg) + '\n');
  const sid = m.params.sessionId;
  const text = m.params.prompt.map((p) => p.text ?? '').join('');
  const system = fs.readFileSync(process.env.GEMINI_SYSTEM_MD, 'utf8');
  const model = args[args.indexOf('-m') + 1];
  fetch(process.env.GOOGLE_GEMINI_BASE_URL + '/v1beta/models/' + model + ':generateContent', {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'x-goog-api-key': process.env.GEMINI_API_KEY ?? 'stub' },
    body: JSON.stringify({ contents: [{ role: 'user', parts: [{ text }] }], systemInstruction: { parts: [{ text: system }] } }),
  }).then(async (r) => {
    const j = await r.json();
    if (!r.ok) { send({ jsonrpc: '2.0', id: m.id, error: { code: r.status, message: JSON.stringify(j).slice(0, 300) } }); return; }
    const answer = (j.candidates?.[0]?.content?.parts ?? []).map((p) => p.text ?? '').join('');
    send({ jsonrpc: '2.0', method: 'session/update', params: { sessionId: sid, update: { sessionUpdate: 'agent_message_chunk', content: { type: 'text', text: answer } } } });
    const u = j.usageMetadata ?? {};
    send({ jsonrpc: '2.0', id: m.id, result: { stopReason: 'end_turn', _meta: { quota: { token_count: { input_tokens: u.promptTokenCount ?? 0, output_tokens: u.candidatesTokenCount ?? 0 } } } } });
  }, (e) => send({ jsonrpc: '2.0', id: m.id, error: { code: 500, message: String(e) } }));
}
if (args.includes('--acp')) {
  if (opts.noAcp) { process.stderr.write('Unknown argument: acp\n'); process.exit(1); }
  const send = (m) => process.stdout.write(JSON.stringify(m) + '\n');
  const cancelled = new Set();
  let sessions = 0, inFlight = 0;
  let buffer = '';
  process.stdin.on('data', (chunk) => {
    buffer += chunk;
    let nl;
    while ((nl = buffer.indexOf('\n')) >= 0) {
      const line = buffer.slice(0, nl); buffer = buffer.slice(nl + 1);
      if (line.trim() === '') continue;
      const m = JSON.parse(line);
      log({ in: m });
      if (m.method === 'initialize') send({ jsonrpc: '2.0', id: m.id, result: { protocolVersion: 1, authMethods: [] } });
      else if (m.method === 'session/new') {
        if (opts.authError) send({ jsonrpc: '2.0', id: m.id, error: { code: -32000, message: 'Authentication required.' } });
        else send({ jsonrpc: '2.0', id: m.id, result: { sessionId: 'session-' + (++sessions) } });
      } else if (m.method === 'session/cancel') cancelled.add(m.params.sessionId);
      else if (m.method === 'session/prompt') {
        inFlight += 1; log({ inFlight });
        const sid = m.params.sessionId;
        const tick = () => {
          if (cancelled.has(sid)) { inFlight -= 1; send({ jsonrpc: '2.0', id: m.id, result: { stopReason: 'cancelled' } }); return; }
          if (opts.proxy) { inFlight -= 1; proxy(m); return; }
          if (!opts.hold || released()) {
            inFlight -= 1;
            if (opts.promptError) { send({ jsonrpc: '2.0', id: m.id, error: opts.promptError }); return; }
            send({ jsonrpc: '2.0', method: 'session/update', params: { sessionId: sid, update: { sessionUpdate: 'agent_thought_chunk', content: { type: 'text', text: 'hmm' } } } });
            send({ jsonrpc: '2.0', method: 'session/update', params: { sessionId: sid, update: { sessionUpdate: 'agent_message_chunk', content: { type: 'text', text: 'answer from ' } } } });
            send({ jsonrpc: '2.0', method: 'session/update', params: { sessionId: sid, update: { sessionUpdate: 'agent_message_chunk', content: { type: 'text', text: sid } } } });
            send({ jsonrpc: '2.0', id: m.id, result: { stopReason: 'end_turn', _meta: { quota: { token_count: { input_tokens: 12, output_tokens: 5 } } } } });
            return;
          }
          setTimeout(tick, 10);
        };
        tick();
      } else if (m.id !== undefined) send({ jsonrpc: '2.0', id: m.id, error: { code: -32601, message: 'no ' + m.method } });
    }
  });
  process.stdin.on('end', () => process.exit(0));
} else if (args.includes('-p')) {
  let input = '';
  process.stdin.on('data', (c) => (input += c));
  process.stdin.on('end', () => {
    log({ in: { method: 'headless', params: { stdin: input, p: args[args.indexOf('-p') + 1] } } });
    if (opts.headlessError) { process.stdout.write(JSON.stringify({ error: { type: 'Error', message: opts.headlessError.message, code: 1 } })); process.exit(opts.headlessError.exit); }
    process.stdout.write(JSON.stringify({ session_id: 'h', response: 'headless answer', stats: { models: { m: { tokens: { prompt: 7, candidates: 3, thoughts: 2 } } } } }));
  });
} else process.exit(2);
`;

export async function stubGemini(
  dir: string,
  options: {
    exit?: number;
    noAcp?: boolean;
    hold?: boolean;
    /** Answer prompts from the model at GOOGLE_GEMINI_BASE_URL (a local fake Gemini). */
    proxy?: boolean;
    authError?: boolean;
    promptError?: { code: number; message: string };
    headlessError?: { exit: number; message: string };
    /** Files it tries to read at start (a canary: the log says whether it could). */
    read?: string[];
  } = {},
): Promise<StubGemini> {
  const bin = join(dir, 'stub-bin');
  await mkdir(bin, { recursive: true });
  const path = join(bin, 'gemini');
  await writeFile(join(bin, 'stub.json'), JSON.stringify(options));
  await writeFile(join(bin, 'stub.cjs'), SCRIPT);
  await writeFile(
    path,
    `#!${process.execPath}\nrequire(${JSON.stringify(join(bin, 'stub.cjs'))});\n`,
  );
  await chmod(path, 0o755);
  return {
    bin,
    path,
    log: async () => {
      const text = await readFile(join(bin, 'log.jsonl'), 'utf8').catch(() => '');
      return text
        .split('\n')
        .filter((l) => l !== '')
        .map((l) => JSON.parse(l) as StubEntry);
    },
    release: () => writeFile(join(bin, 'release'), ''),
  };
}

/** Waits (with a ceiling) until the stub's log satisfies `test`. */
export async function untilLogged(
  stub: StubGemini,
  test: (log: StubEntry[]) => boolean,
  ceilingMs = 20_000,
): Promise<StubEntry[]> {
  const until = Date.now() + ceilingMs;
  for (;;) {
    const log = await stub.log();
    if (test(log)) return log;
    if (Date.now() > until)
      throw new Error(`the stub never logged it: ${JSON.stringify(log).slice(0, 2000)}`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}
