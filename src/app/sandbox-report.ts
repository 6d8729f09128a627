import {
  findSandbox,
  noSandboxReason,
  probeSandbox,
  SANDBOXES,
  sandboxChoiceProblem,
  sandboxesFor,
} from '../adapters/sandbox/bwrap.js';
import { CHECK_LIMITS, limitSupport, type LimitSupport } from '../adapters/sandbox/limits.js';
import type { SandboxSettings } from './settings.js';

/** Where this machine's checks would run, as `maker doctor` reports it. */
export interface SandboxReport {
  /** The sandbox checks run in, or undefined when none works (then `reason` says why). */
  readonly chosen: string | undefined;
  /** `MAKER_SANDBOX`, when set. */
  readonly choice: string | undefined;
  /** What is wrong with `MAKER_SANDBOX` when it names no choice (a run refuses it); '' when nothing is. */
  readonly choiceProblem: string;
  /** Why no sandbox is used; '' when one is. */
  readonly reason: string;
  /** Every sandbox MAKER knows, probed as a run probes it. */
  readonly sandboxes: readonly {
    readonly name: string;
    /** Whether `MAKER_SANDBOX` lets it be used. */
    readonly allowed: boolean;
    readonly works: boolean;
    readonly why: string;
  }[];
  /** How a check's limits hold here, and what they are. */
  readonly limits: LimitSupport & { readonly processesMax: number; readonly memoryBytes: number };
}

/** What is wrong with `MAKER_SANDBOX` when it names no choice (a run, a resume and `maker sandbox` refuse it). */
export function sandboxSettingProblem(settings: SandboxSettings): string | undefined {
  return sandboxChoiceProblem(settings.choice);
}

/** The sandbox checks would run in here, or why none: what a demo or `maker sandbox` says first. */
export async function sandboxOrWhyNot(
  settings: SandboxSettings,
): Promise<{ readonly name: string } | { readonly name: undefined; readonly reason: string }> {
  const { path, choice } = settings;
  const sandbox = await findSandbox(path, choice);
  return sandbox !== undefined
    ? { name: sandbox.name }
    : { name: undefined, reason: await noSandboxReason(path, choice) };
}

/**
 * Which sandbox checks would run in (bubblewrap, else util-linux unshare; `MAKER_SANDBOX` narrows
 * the choice), each one probed as a run probes it, why one does not work, and how the sandbox's
 * limits hold here (a control group, per-process limits, or not at all).
 */
export async function sandboxReport(settings: SandboxSettings): Promise<SandboxReport> {
  const { path, choice } = settings;
  const allowed = sandboxesFor(choice);
  const [found, sandboxes, limits] = await Promise.all([
    sandboxOrWhyNot(settings),
    Promise.all(
      SANDBOXES.map(async (s) => {
        const probe = await probeSandbox(s, path);
        return {
          name: s.name,
          allowed: allowed.includes(s),
          works: probe.sandbox !== undefined,
          why: probe.why,
        };
      }),
    ),
    limitSupport(),
  ]);
  return {
    chosen: found.name,
    choice,
    choiceProblem: sandboxChoiceProblem(choice) ?? '',
    reason: found.name === undefined ? found.reason : '',
    sandboxes,
    limits: {
      ...limits,
      processesMax: CHECK_LIMITS.processes,
      memoryBytes: CHECK_LIMITS.memoryBytes,
    },
  };
}
