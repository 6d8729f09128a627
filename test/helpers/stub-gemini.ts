import { readFileSync } from 'node:fs';
import { chmod, mkdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';

/**
 * A stand-in `gemini` executable for tests of MAKER's Gemini CLI access: a small Node script that
 * logs how it was started and every message it got, and answers as the real one does —
 * `--help`: its flags; `--acp`: JSON-RPC over stdio, one session per `session/new`, prompts held
 * until `release` exists in its directory (or cancelled by `session/cancel`), each answer's usage
 * recorded as Gemini CLI records it (a chat recording under `GEMINI_CLI_HOME`); `-p`: the request
 * on stdin, the answer as `stream-json` events, and MAKER's sign-in check (`/maker-sign-in-check`)
 * blocked by policy as the real one blocks it. Faults on request: `exit` (41: not signed in),
 * `noAcp` (an old `gemini`), `old` (one without `--policy`), `hang` (never answers at start-up),
 * `stall` (a prompt's answer stops after its first words, and it ignores a cancel), `stallFirst`
 * (only the first prompt of any of its processes does; later ones think aloud until released), `login` (asks for a login on its
 * output), `grandchild` (starts a process of its own, to see it ended with the group).
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
  /** How a process started: some variables' values (`env`), and the names of all (`names`). */
  readonly start?: {
    args: string[];
    cwd: string;
    env: Record<string, string>;
    names: string[];
    pid: number;
  };
  readonly in?: { method?: string; params?: Record<string, unknown>; id?: number };
  readonly inFlight?: number;
  readonly read?: string;
  /** A process the stub started of its own (`grandchild`). */
  readonly grandchild?: number;
}

const SCRIPT = String.raw`
const fs = require('node:fs');
const path = require('node:path');
const dir = __dirname;
const opts = JSON.parse(fs.readFileSync(path.join(dir, 'stub.json'), 'utf8'));
const log = (entry) => fs.appendFileSync(path.join(dir, 'log.jsonl'), JSON.stringify(entry) + '\n');
const args = process.argv.slice(2);
const env = {};
for (const k of ['GEMINI_SYSTEM_MD', 'GEMINI_CLI_TRUST_WORKSPACE', 'GEMINI_CLI', 'HOME', 'GEMINI_CLI_HOME', 'TMPDIR', 'NO_BROWSER', 'GEMINI_CLI_NO_RELAUNCH']) if (process.env[k] !== undefined) env[k] = process.env[k];
log({ start: { args, cwd: process.cwd(), env, names: Object.keys(process.env).sort(), pid: process.pid } });
for (const f of opts.read ?? []) { try { fs.readFileSync(f); log({ read: f }); } catch {} }
if (opts.grandchild) {
  const g = require('node:child_process').spawn(process.execPath, ['-e', 'setInterval(() => {}, 1000)'], { stdio: 'ignore' });
  log({ grandchild: g.pid });
}
if (args.includes('--help')) {
  const flags = ['--model', '--prompt', '--output-format', '--extensions', '--allowed-mcp-server-names', '--approval-mode', '--skip-trust', '--policy', '--acp']
    .filter((f) => !(opts.noAcp && f === '--acp') && !(opts.old && f === '--policy'));
  process.stdout.write('Usage: gemini [options]\n\nOptions:\n' + flags.map((f) => '  ' + f).join('\n') + '\n');
  process.exit(0);
}
if (opts.old && args.includes('--policy')) { process.stderr.write('Unknown arguments: policy\n'); process.exit(1); }
if (opts.exit !== undefined) { process.stderr.write('stub: exiting ' + opts.exit + '\n'); process.exit(opts.exit); }
if (opts.login) {
  process.stdout.write('Please visit the following URL to authorize the application:\n\nhttps://accounts.google.com/o/oauth2/v2/auth?x=1\n\nEnter the authorization code: ');
  setInterval(() => {}, 1000);
  return;
}
if (opts.hang) { setInterval(() => {}, 1000); return; }
const released = () => fs.existsSync(path.join(dir, 'release'));
/** Records a session's usage as Gemini CLI does: a chat recording under its home. */
function record(sid, tokens) {
  const home = process.env.GEMINI_CLI_HOME;
  if (!home) return;
  const chats = path.join(home, '.gemini', 'tmp', 'work', 'chats');
  fs.mkdirSync(chats, { recursive: true });
  const file = path.join(chats, 'session-2026-01-01T00-00-' + sid.slice(0, 8) + '.jsonl');
  fs.appendFileSync(file, JSON.stringify({ sessionId: sid, projectHash: 'x', kind: 'main' }) + '\n');
  fs.appendFileSync(file, JSON.stringify({ id: 'm1', type: 'gemini', content: 'x', tokens: { input: tokens.input, output: tokens.output, cached: 0, thoughts: tokens.thoughts, tool: 0, total: 0 } }) + '\n');
}
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
    record(sid, { input: u.promptTokenCount ?? 0, output: u.candidatesTokenCount ?? 0, thoughts: u.thoughtsTokenCount ?? 0 });
    send({ jsonrpc: '2.0', id: m.id, result: { stopReason: 'end_turn', _meta: { quota: { token_count: { input_tokens: u.promptTokenCount ?? 0, output_tokens: u.candidatesTokenCount ?? 0 } } } } });
  }, (e) => send({ jsonrpc: '2.0', id: m.id, error: { code: 500, message: String(e) } }));
}
if (args.includes('--acp')) {
  if (opts.noAcp) { process.stderr.write('Unknown argument: acp\n'); process.exit(1); }
  const send = (m) => process.stdout.write(JSON.stringify(m) + '\n');
  const cancelled = new Set();
  let inFlight = 0;
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
        else send({ jsonrpc: '2.0', id: m.id, result: { sessionId: require('node:crypto').randomUUID() } }); // a UUID, as Gemini CLI's: its recording is named by the first 8 characters
      } else if (m.method === 'session/cancel') cancelled.add(m.params.sessionId);
      else if (m.method === 'session/prompt') {
        inFlight += 1; log({ inFlight });
        const sid = m.params.sessionId;
        const update = (sessionUpdate, text) => send({ jsonrpc: '2.0', method: 'session/update', params: { sessionId: sid, update: { sessionUpdate, content: { type: 'text', text } } } });
        const first = opts.stallFirst && !fs.existsSync(path.join(dir, 'stalled'));
        if (opts.stall || first) { if (first) fs.writeFileSync(path.join(dir, 'stalled'), ''); update('agent_message_chunk', 'the first words'); return; }
        if (opts.stallFirst) {
          // Later prompts think aloud (heard, so never silent) until released or cancelled.
          const think = setInterval(() => {
            if (cancelled.has(sid) || released()) { clearInterval(think); inFlight -= 1; send({ jsonrpc: '2.0', id: m.id, result: { stopReason: cancelled.has(sid) ? 'cancelled' : 'end_turn' } }); return; }
            update('agent_thought_chunk', 'still thinking');
          }, 100);
          return;
        }
        const tick = () => {
          if (cancelled.has(sid)) { inFlight -= 1; send({ jsonrpc: '2.0', id: m.id, result: { stopReason: 'cancelled' } }); return; }
          if (opts.proxy) { inFlight -= 1; proxy(m); return; }
          if (!opts.hold || released()) {
            inFlight -= 1;
            if (opts.promptError) { send({ jsonrpc: '2.0', id: m.id, error: opts.promptError }); return; }
            update('agent_thought_chunk', 'hmm');
            update('agent_message_chunk', 'answer from ');
            update('agent_message_chunk', sid);
            record(sid, { input: 12, output: 5, thoughts: 7 });
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
  const p = args[args.indexOf('-p') + 1];
  process.stdin.on('data', (c) => (input += c));
  process.stdin.on('end', () => {
    log({ in: { method: 'headless', params: { stdin: input, p } } });
    if (p === '/maker-sign-in-check') {
      process.stderr.write(JSON.stringify({ session_id: 'h', error: { type: 'Error', message: 'maker-sign-in-check cannot be run. Blocked command: "true". Reason: Blocked by policy.', code: 1 } }, null, 2) + '\n');
      process.exit(1);
    }
    const event = (e) => process.stdout.write(JSON.stringify(e) + '\n');
    const sid = 'headless-' + process.pid;
    event({ type: 'init', session_id: sid, model: 'm' });
    if (opts.headlessError) {
      event({ type: 'result', status: 'error', error: { type: 'Error', message: opts.headlessError.message } });
      process.exit(opts.headlessError.exit);
    }
    event({ type: 'message', role: 'assistant', content: 'headless ', delta: true });
    if (opts.stall) { setInterval(() => {}, 1000); return; }
    event({ type: 'message', role: 'assistant', content: 'answer', delta: true });
    record(sid, { input: 7, output: 3, thoughts: 2 });
    event({ type: 'result', status: 'success', stats: { total_tokens: 12, input_tokens: 7, output_tokens: 3 } });
  });
} else process.exit(2);
`;

export async function stubGemini(
  dir: string,
  options: {
    exit?: number;
    noAcp?: boolean;
    old?: boolean;
    hold?: boolean;
    hang?: boolean;
    stall?: boolean;
    stallFirst?: boolean;
    login?: boolean;
    grandchild?: boolean;
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
  await writeFile(join(bin, 'stub.cjs'), `(function () {${SCRIPT}\n})();\n`);
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

/** Whether a process is alive (signal 0; a zombie waiting to be reaped counts as gone). */
export function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
  } catch {
    return false;
  }
  try {
    // "pid (name) S …": the state follows the name's closing parenthesis.
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return stat.slice(stat.lastIndexOf(')') + 2, stat.lastIndexOf(')') + 3) !== 'Z';
  } catch {
    return true;
  }
}
