import { execFile } from 'node:child_process';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { AbortedError } from '../../core/errors.js';
import type { CheckSandbox, Hidden, ReadOnlyBind } from '../sandbox/bwrap.js';

const execFileAsync = promisify(execFile);

/** What an install may print on each of stdout and stderr before it is stopped. */
const MAX_OUTPUT_BYTES = 16 * 1024 * 1024;

/** How much of a failed install's output is kept (its tail). */
const KEPT_CHARS = 1500;

/**
 * Settings passed from MAKER's environment to the install, when set: where the registries are and
 * how to reach them (proxies, certificates). Nothing else: no keys or tokens.
 */
const PASSED_ENV = [
  'PATH',
  'LANG',
  'LC_ALL',
  'npm_config_registry',
  'NPM_CONFIG_REGISTRY',
  'YARN_REGISTRY',
  'YARN_NPM_REGISTRY_SERVER',
  'PIP_INDEX_URL',
  'PIP_EXTRA_INDEX_URL',
  'UV_INDEX_URL',
  'UV_DEFAULT_INDEX',
  'UV_EXTRA_INDEX_URL',
  'GOPROXY',
  'GOSUMDB',
  'GONOSUMDB',
  'GOPRIVATE',
  'GONOPROXY',
  'HTTP_PROXY',
  'HTTPS_PROXY',
  'NO_PROXY',
  'http_proxy',
  'https_proxy',
  'no_proxy',
  'SSL_CERT_FILE',
  'SSL_CERT_DIR',
  'NODE_EXTRA_CA_CERTS',
];

/**
 * The install's whole environment, built by MAKER: the settings above from `env`, a home and
 * caches inside `dir` (so nothing the person configured there is read, and everything written
 * stays in the cache), non-interactive package managers, and `MAKER_DEPS` naming `dir`.
 */
export function installEnv(
  env: Readonly<Record<string, string | undefined>>,
  dir: string,
): Record<string, string> {
  const passed = PASSED_ENV.flatMap((k) => {
    const value = env[k];
    return value === undefined ? [] : [[k, value] as const];
  });
  return {
    PATH: process.env['PATH'] ?? '/usr/local/bin:/usr/bin:/bin',
    ...Object.fromEntries(passed),
    HOME: join(dir, 'home'),
    TMPDIR: '/tmp',
    MAKER_DEPS: dir,
    CI: 'true',
    npm_config_update_notifier: 'false',
    npm_config_fund: 'false',
    npm_config_audit: 'false',
    PIP_DISABLE_PIP_VERSION_CHECK: '1',
    PIP_NO_INPUT: '1',
    GOPATH: join(dir, 'go'),
    GOMODCACHE: join(dir, 'go', 'mod'),
    GOFLAGS: '-modcacherw',
    GOTOOLCHAIN: 'local',
  };
}

/** Where and how an install runs. */
export interface InstallRequest {
  readonly command: string;
  /** The sandbox it runs in (with the network: see {@link CheckSandbox.installArgv}). */
  readonly sandbox: CheckSandbox;
  /** The cache directory: the install's only writable place. */
  readonly dir: string;
  /** Its working directory (inside `dir`), holding the dependency files. */
  readonly cwd: string;
  readonly env: Record<string, string>;
  readonly hidden: readonly Hidden[];
  readonly readOnly: readonly ReadOnlyBind[];
  readonly timeoutMs: number;
  readonly signal?: AbortSignal | undefined;
}

/**
 * Runs an install confined by its sandbox with the network shared (see `installArgv`), with
 * no input and a time limit; resolves with whether it passed and, if not, the tail of its output
 * and why it stopped (URL credentials blanked). When `signal` aborts, the install is killed and
 * the call rejects with {@link AbortedError}.
 */
export async function runInstall(
  request: InstallRequest,
): Promise<{ ok: boolean; output: string }> {
  const { signal, timeoutMs } = request;
  if (signal?.aborted === true) throw new AbortedError(signal.reason);
  const [file, ...args] = request.sandbox.installArgv(
    request.command,
    request.dir,
    request.cwd,
    request.hidden,
    request.readOnly,
  );
  const running = execFileAsync(file as string, args, {
    cwd: request.cwd,
    env: request.env,
    timeout: timeoutMs,
    killSignal: 'SIGKILL',
    maxBuffer: MAX_OUTPUT_BYTES,
    ...(signal === undefined ? {} : { signal }),
  });
  running.child.stdin?.end();
  return running.then(
    (r) => ({ ok: true, output: tail(`${r.stdout}${r.stderr}`, '') }),
    (error: { stdout?: string; stderr?: string; killed?: boolean; code?: unknown }) => {
      if (signal?.aborted === true) throw new AbortedError(signal.reason);
      const stopped =
        error.code === 'ERR_CHILD_PROCESS_STDIO_MAXBUFFER'
          ? `\nstopped: it printed more than ${MAX_OUTPUT_BYTES} bytes`
          : error.killed === true
            ? `\ntimed out after ${Math.round(timeoutMs / 1000)} s`
            : typeof error.code === 'number'
              ? `\nexit status ${error.code}`
              : '';
      return { ok: false, output: tail(`${error.stdout ?? ''}${error.stderr ?? ''}`, stopped) };
    },
  );
}

/** The end of `output` with credentials in URLs blanked, then `reason`. */
function tail(output: string, reason: string): string {
  const clean = output.replace(/([a-z][a-z0-9+.-]*:\/\/)[^/\s@]+@/gi, '$1***@');
  return `${clean.slice(-(KEPT_CHARS - reason.length))}${reason}`;
}
