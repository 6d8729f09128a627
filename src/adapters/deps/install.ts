import { execFile } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import type { CheckSandbox } from '../sandbox/bwrap.js';
import type { HostView } from '../sandbox/host-view.js';
import { INSTALL_LIMITS } from '../sandbox/limits.js';
import { FORWARDER, startRegistryProxy } from '../sandbox/registry-proxy.js';
import { runSandboxed, stopMessage, type StopReason } from '../sandbox/run-sandboxed.js';
import { DEPS, MAKER_DIR, scratchMounts, type SandboxSpec } from '../sandbox/view.js';
import type { InstallNetwork } from './registries.js';

const execFileAsync = promisify(execFile);

/** What an install may print on each of stdout and stderr before it is stopped. */
const MAX_OUTPUT_BYTES = 16 * 1024 * 1024;

/**
 * How much of a failed install's output is handed back (its tail): more than the engine keeps
 * of a check's output, which it redacts first, so no cut here splits a key.
 */
const KEPT_CHARS = 16 * 1024;

/** The most an install may write to its cache entry. */
export const INSTALL_DISK_BYTES = 4 * 1024 * 1024 * 1024;

/** Where the install reaches MAKER's proxy: its own loopback, forwarded to the proxy's socket. */
const PROXY_PORT = 3128;
const PROXY = `http://127.0.0.1:${PROXY_PORT}`;
const PROXY_SOCKET = `${MAKER_DIR}/proxy.sock`;

/** Settings passed from MAKER's environment as they are: the locale, nothing else. */
const PASSED_ENV = ['LANG', 'LC_ALL'];

/**
 * The install's whole environment, built by MAKER: a home and caches inside the entry (so nothing
 * the person configured is read, and everything written stays in the entry), the configured
 * registries and MAKER's proxy for every package manager, no lifecycle scripts, no builds, no
 * configuration files of pip or uv, and `MAKER_DEPS` naming the entry.
 */
export function installEnv(
  env: Readonly<Record<string, string | undefined>>,
  view: HostView,
  network: InstallNetwork,
): Record<string, string> {
  const passed = PASSED_ENV.flatMap((k) => {
    const value = env[k];
    return value === undefined ? [] : [[k, value] as const];
  });
  const { npm, pypi } = network.registries;
  const goProxy = env['GOPROXY'] ?? 'https://proxy.golang.org';
  return {
    ...Object.fromEntries(passed),
    PATH: view.path,
    HOME: `${DEPS}/home`,
    TMPDIR: '/tmp',
    MAKER_DEPS: DEPS,
    MAKER_PROXY: PROXY,
    MAKER_PIP_INDEX: pypi[0] ?? '',
    CI: 'true',
    HTTP_PROXY: PROXY,
    HTTPS_PROXY: PROXY,
    http_proxy: PROXY,
    https_proxy: PROXY,
    NO_PROXY: '',
    no_proxy: '',
    npm_config_registry: npm,
    npm_config_proxy: PROXY,
    npm_config_https_proxy: PROXY,
    npm_config_noproxy: '',
    npm_config_ignore_scripts: 'true',
    npm_config_update_notifier: 'false',
    npm_config_fund: 'false',
    npm_config_audit: 'false',
    YARN_REGISTRY: npm,
    YARN_NPM_REGISTRY_SERVER: npm.replace(/\/$/, ''),
    YARN_HTTP_PROXY: PROXY,
    YARN_HTTPS_PROXY: PROXY,
    YARN_ENABLE_SCRIPTS: 'false',
    YARN_ENABLE_TELEMETRY: '0',
    PIP_CONFIG_FILE: '/dev/null',
    PIP_DISABLE_PIP_VERSION_CHECK: '1',
    PIP_NO_INPUT: '1',
    UV_NO_CONFIG: '1',
    UV_DEFAULT_INDEX: pypi[0] ?? '',
    GOPROXY: goProxy,
    ...(env['GOSUMDB'] === undefined ? {} : { GOSUMDB: env['GOSUMDB'] }),
    GOPATH: `${DEPS}/go`,
    GOMODCACHE: `${DEPS}/go/mod`,
    GOFLAGS: '-modcacherw',
    GOTOOLCHAIN: 'local',
  };
}

/** The spec of an install: the host view, the entry writable at {@link DEPS}, the proxy's socket. */
export function installSpec(
  view: HostView,
  command: string,
  entry: string,
  socket: string,
  env: Record<string, string>,
): SandboxSpec {
  return {
    mounts: [
      ...view.mounts,
      ...scratchMounts({ tmpBytes: 1024 * 1024 * 1024, homeBytes: 1024 * 1024 }),
      { kind: 'bind', source: entry, target: DEPS },
      { kind: 'ro-bind', source: socket, target: PROXY_SOCKET },
    ],
    env,
    cwd: `${DEPS}/project`,
    argv: [
      process.execPath,
      '-e',
      FORWARDER,
      PROXY_SOCKET,
      String(PROXY_PORT),
      '/bin/sh',
      '-c',
      command,
    ],
  };
}

/** Where and how an install runs. */
export interface InstallRequest {
  readonly command: string;
  readonly sandbox: CheckSandbox;
  readonly view: HostView;
  /** The cache entry on the host: the install's only writable place (its `project/` the cwd). */
  readonly dir: string;
  readonly network: InstallNetwork;
  /** MAKER's environment (the install takes only the settings above from it). */
  readonly env: Readonly<Record<string, string | undefined>>;
  readonly timeoutMs: number;
  readonly signal?: AbortSignal | undefined;
}

/**
 * Runs an install confined by its sandbox, whose only way out is MAKER's registry proxy, with no
 * input, a time limit and the install's limits (disk included); resolves with whether it passed
 * and, if not, the tail of its output, what the proxy refused, and why it stopped (URL
 * credentials blanked). When `signal` aborts, the install is killed and the call rejects.
 */
export async function runInstall(
  request: InstallRequest,
): Promise<{ ok: boolean; output: string }> {
  const private_ = await mkdtemp(join(tmpdir(), 'maker-proxy-'));
  const proxy = await startRegistryProxy({
    origins: request.network.origins,
    dir: private_,
    upstream: request.network.upstream,
  });
  try {
    const env = installEnv(request.env, request.view, request.network);
    const spec = installSpec(request.view, request.command, request.dir, proxy.socket, env);
    const options = {
      timeoutMs: request.timeoutMs,
      limits: INSTALL_LIMITS,
      maxOutputBytes: MAX_OUTPUT_BYTES,
    };
    const result = await runSandboxed(request.sandbox, spec, {
      ...options,
      signal: request.signal,
      watch: async (): Promise<StopReason | undefined> =>
        (await diskUsage(request.dir)) > INSTALL_DISK_BYTES ? 'disk' : undefined,
    });
    const refused =
      proxy.refused.length === 0
        ? ''
        : `\nMAKER's proxy refused (installs reach only the configured registries):\n${[...new Set(proxy.refused)].map((r) => `  ${r}`).join('\n')}`;
    const stopped = stopMessage(result.stopped, {
      ...options,
      diskBytes: INSTALL_DISK_BYTES,
      seconds: true,
    });
    const status = result.ok || result.code === null ? '' : `\nexit status ${result.code}`;
    return {
      ok: result.ok,
      output: tail(`${result.stdout}${result.stderr}`, `${refused}${stopped || status}`),
    };
  } finally {
    await proxy.close();
    await rm(private_, { recursive: true, force: true });
  }
}

/** Bytes under `dir` (`du`), 0 when it cannot be read. */
async function diskUsage(dir: string): Promise<number> {
  const { stdout } = await execFileAsync('du', ['-sb', dir]).catch(() => ({ stdout: '0' }));
  return Number(stdout.split(/\s/)[0]) || 0;
}

/** The end of `output` with credentials in URLs blanked, then `reason`. */
function tail(output: string, reason: string): string {
  const clean = output.replace(/([a-z][a-z0-9+.-]*:\/\/)[^/\s@]+@/gi, '$1***@');
  return `${clean.slice(-(KEPT_CHARS - reason.length))}${reason}`;
}
