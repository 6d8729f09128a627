import { homedir } from 'node:os';
import { bubblewrapAt, type CheckSandbox, type SandboxName } from './bubblewrap.js';
import { CHECK_LIMITS } from './limits.js';
import { runSandboxed } from './run-sandboxed.js';
import { hostView } from './host-view.js';
import { unshareAt } from './unshare.js';
import { which } from './which.js';
import { scratchMounts, SANDBOX_HOME } from './view.js';

export type { CheckSandbox } from './bubblewrap.js';

/** A kind of sandbox MAKER can use: the programs it needs on the PATH, and how to make one of them. */
export interface SandboxKind {
  readonly name: SandboxName;
  readonly programs: readonly string[];
  /** The sandboxes to try, best first, given each program's absolute path. */
  make(files: Readonly<Record<string, string>>): CheckSandbox[];
}

const bubblewrapKind: SandboxKind = {
  name: 'bubblewrap',
  programs: ['bwrap'],
  // Without `--disable-userns` only where this bubblewrap is older than 0.8.
  make: (f) => [bubblewrapAt(f['bwrap'] as string), bubblewrapAt(f['bwrap'] as string, false)],
};

const unshareKind: SandboxKind = {
  name: 'unshare',
  programs: ['unshare', 'setpriv', 'sh'],
  make: (f) => [
    unshareAt({
      unshare: f['unshare'] as string,
      setpriv: f['setpriv'] as string,
      sh: f['sh'] as string,
    }),
  ],
};

/** The sandboxes MAKER can use, in the order it tries them. */
export const SANDBOXES: readonly SandboxKind[] = [bubblewrapKind, unshareKind];

/**
 * `MAKER_SANDBOX`'s values: `bubblewrap` or `unshare` use only that one (if it works), `none`
 * none (checks do not run: results are unverified); unset (or anything else), the first that works.
 * A run refuses anything else before it starts ({@link sandboxChoiceProblem}).
 */
export const SANDBOX_CHOICES = ['bubblewrap', 'unshare', 'none'] as const;

/**
 * What is wrong with `choice` (MAKER_SANDBOX's value) when it names no choice: a run refuses it
 * before anything is made, rather than take a typo for "the first that works".
 */
export function sandboxChoiceProblem(choice: string | undefined): string | undefined {
  return choice === undefined || (SANDBOX_CHOICES as readonly string[]).includes(choice)
    ? undefined
    : `MAKER_SANDBOX=${choice} is not a sandbox MAKER knows: use bubblewrap or unshare (that one only), none (no checks run: results are unverified), or unset it (the first that works).`;
}

/** Where sandboxes are looked for: the PATH their programs are found on, and `MAKER_SANDBOX`'s choice. */
export interface SandboxWhere {
  readonly path: string;
  /** `MAKER_SANDBOX`, when set: the sandbox (or `none`) checks are narrowed to. */
  readonly choice: string | undefined;
}

/** Which sandboxes `choice` (MAKER_SANDBOX's value) lets MAKER try, in order. */
export function sandboxesFor(choice: string | undefined): readonly SandboxKind[] {
  if (choice === 'none') return [];
  const only = SANDBOXES.filter((s) => s.name === choice);
  return only.length > 0 ? only : SANDBOXES;
}

/** Whether a kind works here, and if not, why (its programs missing, or what it said). */
export interface Probe {
  readonly sandbox: CheckSandbox | undefined;
  readonly why: string;
}

const probes = new Map<string, Promise<Probe>>();

/**
 * Whether `kind` works here with this PATH (probed once per PATH): its programs are found on
 * the PATH (outside any directory a model writes), and it runs `true` with the very view a check
 * gets, in a fresh empty directory as a check's.
 */
export function probeSandbox(kind: SandboxKind, path: string): Promise<Probe> {
  const key = `${kind.name}\0${path}`;
  let probe = probes.get(key);
  if (probe === undefined) {
    probe = runProbe(kind, path);
    probes.set(key, probe);
  }
  return probe;
}

async function runProbe(kind: SandboxKind, path: string): Promise<Probe> {
  const files: Record<string, string> = {};
  for (const program of kind.programs) {
    const file = await which(program, path);
    if (file === undefined) return { sandbox: undefined, why: `${program} is not installed` };
    files[program] = file;
  }
  const view = await hostView(path, homedir());
  let why = '';
  for (const sandbox of kind.make(files)) {
    // As a check is run (its report, its filter, its limits, nothing inherited). Generous: a busy
    // machine can take seconds to start a sandbox, and a probe that gives up too soon would turn
    // checks off for the whole process.
    const result = await runSandboxed(
      sandbox,
      {
        mounts: [...view.mounts, ...scratchMounts({ tmpBytes: 1 << 20, homeBytes: 1 << 20 })],
        env: { PATH: view.path, HOME: SANDBOX_HOME },
        cwd: SANDBOX_HOME,
        argv: ['/bin/sh', '-c', 'echo maker-sandbox-ok'],
      },
      { timeoutMs: 60_000, limits: CHECK_LIMITS, maxOutputBytes: 64 * 1024 },
    ).catch((error: unknown) => ({
      ok: false,
      stdout: '',
      stderr: error instanceof Error ? error.message : String(error),
      stopped: undefined,
    }));
    const said = result.stderr.trim();
    if (result.ok && result.stdout.trim() === 'maker-sandbox-ok') return { sandbox, why: 'works' };
    why = result.ok
      ? `it ran, but not as expected (${result.stdout.trim().slice(0, 200)})`
      : result.stopped === 'timeout'
        ? 'it did not answer within 60 s'
        : said === ''
          ? 'it failed to start'
          : lastLine(said);
  }
  return { sandbox: undefined, why };
}

/**
 * The sandbox this machine can run: bubblewrap, else util-linux `unshare` (each probed once per
 * PATH), or undefined when none works here. `choice` (the settings' `MAKER_SANDBOX`) narrows
 * the candidates (see {@link sandboxesFor}). Both come from the settings, never from this
 * process's environment behind them.
 */
export async function findSandbox(
  path: string,
  choice: string | undefined,
): Promise<CheckSandbox | undefined> {
  for (const kind of sandboxesFor(choice)) {
    const { sandbox } = await probeSandbox(kind, path);
    if (sandbox !== undefined) return sandbox;
  }
  return undefined;
}

/** Why no sandbox is used, for the message that says checks are off or refuses `--run-checks`. */
export async function noSandboxReason(path: string, choice: string | undefined): Promise<string> {
  if (choice === 'none')
    return 'Checks are off: MAKER_SANDBOX is "none" (unset it to use bubblewrap or unshare)';
  const said = await Promise.all(
    sandboxesFor(choice).map(async (k) => `${k.name}: ${(await probeSandbox(k, path)).why}`),
  );
  return `No sandbox works on this machine (${said.join('; ')})`;
}

/** Why `--run-checks` cannot be honoured here, for the message that refuses it. */
export const NO_SANDBOX =
  'Checks run commands a model proposed, so MAKER runs them only inside a sandbox (no network, nothing of the host but the system and the toolchains, read-only), and none works on this machine (bubblewrap, or util-linux unshare with unprivileged user namespaces). Install bubblewrap (Debian/Ubuntu: apt-get install bubblewrap; Fedora: dnf install bubblewrap), or run without --run-checks.';

function lastLine(text: string): string {
  const lines = text.split('\n').filter((l) => l.trim() !== '');
  return (lines.at(-1) ?? text).slice(0, 300);
}
