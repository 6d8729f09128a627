import type { GitWorkspace } from '../adapters/git/git-workspace.js';
import { knowSecret, type Settings } from './settings.js';
import type { RunEngine } from './run-engine.js';
import { engineFor, rolesFor } from './wiring/wiring.js';
import type { RoleOptions } from './workers/index.js';

/** A repository opened for runs (`openWorkspace`): its git processes live until it is closed. */
export type OpenedWorkspace = GitWorkspace;

/**
 * The engine over an opened repository, for `maker run`, `maker resume` and the MCP server alike:
 * roles made per run (so a run's worker shares its GitHub publisher) and each GitHub run's remote,
 * with the token it is given now (`token` is read at each use where it can change, as the MCP
 * server's can). The engine closes the roles it makes.
 */
export async function engineOver(
  dir: string,
  workspace: OpenedWorkspace,
  settings: Settings,
  token: string | undefined | (() => string | undefined),
  options: RoleOptions = {},
): Promise<RunEngine> {
  // Loaded here, when a run starts: `maker --help` and the light commands never load GitHub's client.
  const { engineRemotes } = await import('./start/remotes.js');
  // The GitHub token, however it was found (`gh auth token`'s is in no environment variable), joins
  // the process's keys when it is read, before any use of it, and is redacted from then on.
  const known = (value: string | undefined): string | undefined => {
    if (value !== undefined) knowSecret(settings, value);
    return value;
  };
  const current = typeof token === 'function' ? () => known(token()) : known(token);
  if (typeof current === 'function') current(); // the token set now is known from the start
  const remote = engineRemotes(workspace, current, () => engine.persist());
  // Called only once the engine exists.
  const engine = engineFor(
    dir,
    workspace,
    (config, run) =>
      rolesFor(config, workspace, settings, {
        ...options,
        ...(run === undefined ? {} : { publisher: remote(run)?.publisher }),
      }),
    settings,
    remote,
  );
  return engine;
}
