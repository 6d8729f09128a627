import type { CheckEnvironment } from '../../core/checks.js';
import type { Run } from '../../core/tree/schema.js';
import type { Workspace } from '../../ports/workspace.js';
import type { EngineEventInput } from '../events.js';

const NO_SANDBOX_HINT =
  'Install bubblewrap (Debian/Ubuntu: apt-get install bubblewrap; Fedora: dnf install bubblewrap), or allow unprivileged user namespaces for util-linux unshare, to verify results.';

/**
 * Where this start's checks run, recorded on the run (`run.sandbox`: the sandbox's name, or null
 * where none works, said once: the result is unverified). Probed only when some check would run;
 * undefined otherwise, and where none works.
 */
export async function probeChecks(
  run: Run,
  workspace: Pick<Workspace, 'checkEnvironment' | 'checksUnavailable'>,
  emit: (event: EngineEventInput) => void,
): Promise<CheckEnvironment | undefined> {
  if (!run.config.runChecks && run.nodes[run.rootId]?.check === undefined) return undefined;
  const env = await workspace.checkEnvironment?.();
  run.sandbox = env?.sandbox ?? null;
  if (env === undefined) {
    // Why, as the probe found it ("MAKER_SANDBOX is none", "bwrap is not installed", …).
    const why = await workspace.checksUnavailable?.();
    emit({
      type: 'checks-unavailable',
      reason: `${why ?? 'No sandbox works on this machine'}, so no check runs (MAKER never runs model-proposed commands unconfined): the result will be UNVERIFIED.${why?.includes('MAKER_SANDBOX') === true ? '' : ` ${NO_SANDBOX_HINT}`}`,
    });
  }
  return env;
}
