import { writeSync } from 'node:fs';
import type { LauncherSeam } from '../../adapters/git/git-launcher.js';
import { envValue, type Env } from '../env.js';

/** Tests' seams: checkpoints where a test kills, interrupts or stops this process, read from the environment. */

/**
 * Crash tests only: `MAKER_CRASH_AT=<step>` (e.g. `land:read-tree`) makes this process SIGKILL itself
 * when it reaches that checkpoint; `<step>@<n>` at its nth time; `*@<n>` at the nth checkpoint of any
 * name. Checkpoints sit between the steps of multi-step operations, so a test reaches each of them
 * exactly, not by timing. Unset, it does nothing.
 */
export function crashSeam(env: Env): ((step: string) => void) | undefined {
  const kill = seamAt(envValue(env, 'MAKER_CRASH_AT'), 'SIGKILL');
  // `MAKER_INTERRUPT_AT=<step>`: the same, with SIGINT (a person's Ctrl-C at that very step).
  const interrupt = seamAt(envValue(env, 'MAKER_INTERRUPT_AT'), 'SIGINT');
  const stop = stopSeam(envValue(env, 'MAKER_STOP_AT'));
  if (kill === undefined && interrupt === undefined && stop === undefined) return undefined;
  return (step) => (kill?.(step), interrupt?.(step), stop?.(step));
}

/** The checkpoints this process already stopped at (see {@link stopSeam}): once each. */
const stoppedAt = new Set<string>();

/**
 * Crash tests only: `MAKER_STOP_AT=<step>,<step>…` makes this process, the first time it reaches
 * each of those checkpoints, say so on stderr (`maker: stopped at <step>`) and stop itself
 * (SIGSTOP) until it is continued: a test copies what a kill there would leave, then lets the run
 * go on (one run for many kill points).
 */
function stopSeam(spec: string): ((step: string) => void) | undefined {
  if (spec === '') return undefined;
  const steps = new Set(spec.split(','));
  return (step) => {
    if (!steps.has(step) || stoppedAt.has(step)) return;
    stoppedAt.add(step);
    writeSync(2, `maker: stopped at ${step}\n`);
    process.kill(process.pid, 'SIGSTOP');
  };
}

function seamAt(spec: string, signal: NodeJS.Signals): ((step: string) => void) | undefined {
  if (spec === '') return undefined;
  const [name, nth] = spec.split('@');
  let seen = 0;
  const at = Number(nth ?? '1');
  return (step) => {
    if (name !== '*' && name !== step) return;
    seen += 1;
    if (seen === at) process.kill(process.pid, signal);
  };
}

/**
 * Tests only: `MAKER_KILL_GIT_HELPER_AT=<n>` SIGKILLs the git launcher's helper process right
 * after the nth one-off git command is handed to it (`<n>+`: after the nth and every one after),
 * as the out-of-memory killer would. Unset, it does nothing.
 */
export function gitHelperSeam(env: Env): LauncherSeam | undefined {
  const spec = envValue(env, 'MAKER_KILL_GIT_HELPER_AT');
  const match = /^(\d+)(\+?)$/.exec(spec);
  if (match === null) return undefined;
  const at = Number(match[1]);
  const onward = match[2] === '+';
  return (n, helper) => {
    if (n === at || (onward && n > at)) helper.kill('SIGKILL');
  };
}

/**
 * Tests only: `MAKER_TEST_CHECK_MEMORY_MIB=<n>` lowers a check's memory limit to n MiB (never
 * raises it), so a test reaches the same limit with less memory written. Unset, undefined.
 */
export function checkMemorySeam(env: Env): number | undefined {
  const mib = Number(envValue(env, 'MAKER_TEST_CHECK_MEMORY_MIB'));
  return mib > 0 ? mib : undefined;
}

/**
 * Kill campaigns only: `MAKER_KILL_AT_GITHUB_REQUEST=<n>` SIGKILLs this process when the demo's own
 * fake GitHub receives its nth request (nothing of it done); `<n>:after` once it carried it out,
 * before the answer reaches MAKER. REST and git requests are counted alike. Unset, nothing.
 */
export function githubRequestSeam(
  env: Env,
): ((n: number, phase: 'received' | 'handled') => void) | undefined {
  const match = /^(\d+)(:after)?$/.exec(envValue(env, 'MAKER_KILL_AT_GITHUB_REQUEST'));
  if (match === null) return undefined;
  const at = Number(match[1]);
  const phase = match[2] === undefined ? 'received' : 'handled';
  return (n, now) => {
    if (n === at && now === phase) process.kill(process.pid, 'SIGKILL');
  };
}
