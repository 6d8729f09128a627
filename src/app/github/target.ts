import { UsageError } from '../../core/errors.js';
import type { RepoRef } from '../../ports/repo-host.js';

/** `owner/name` as GitHub allows them, or a clear refusal. */
export function parseRepoSpec(spec: string, where = '--github'): RepoRef {
  const match = /^([A-Za-z0-9](?:[A-Za-z0-9-]{0,38}))\/([A-Za-z0-9._-]{1,100})$/.exec(spec.trim());
  if (match === null || match[2] === '.' || match[2] === '..' || match[2]?.endsWith('.git'))
    throw new UsageError(
      `${where} takes a GitHub repository as owner/name (letters, digits, - . _), e.g. ${where === '--github' ? '--github alice/csv-tool' : '"alice/csv-tool"'}; got "${spec}".`,
    );
  return { owner: match[1] as string, name: match[2] as string };
}

/**
 * The GitHub repository an `origin` URL names, on the host the API URL belongs to: github.com for
 * https://api.github.com, the same host for GitHub Enterprise or a local fake. Undefined otherwise.
 */
export function repoOfOrigin(origin: string | undefined, apiUrl: string): RepoRef | undefined {
  if (origin === undefined) return undefined;
  const api = new URL(apiUrl);
  const host = api.host === 'api.github.com' ? 'github.com' : api.host;
  const ssh = /^(?:ssh:\/\/)?git@([^:/]+)[:/]([^/]+)\/([^/]+?)(?:\.git)?\/?$/.exec(origin);
  if (ssh !== null)
    return ssh[1] === host ? { owner: ssh[2] as string, name: ssh[3] as string } : undefined;
  let url: URL;
  try {
    url = new URL(origin);
  } catch {
    return undefined;
  }
  if (url.host !== host || !/^https?:$/.test(url.protocol)) return undefined;
  const match = /^\/([^/]+)\/([^/]+?)(?:\.git)?\/?$/.exec(url.pathname);
  return match === null ? undefined : { owner: match[1] as string, name: match[2] as string };
}

export function sameRepo(a: RepoRef, b: RepoRef): boolean {
  return (
    a.owner.toLowerCase() === b.owner.toLowerCase() && a.name.toLowerCase() === b.name.toLowerCase()
  );
}
