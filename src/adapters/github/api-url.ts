import { isLoopbackUrl } from '../../core/loopback.js';
import { ConfigError } from '../../core/errors.js';

/* Apart from octokit.ts, so that what only reads the URL (a plan, `maker --help`) never loads Octokit. */

export const GITHUB_API_URL = 'https://api.github.com';

/**
 * The REST API's base URL from `GITHUB_API_URL`'s value, `given` (GitHub Enterprise:
 * `https://<host>/api/v3`; a local fake: `http://127.0.0.1:<port>`), default
 * https://api.github.com. Plain http is accepted only for a loopback host, since the token travels
 * with every request.
 */
export function gitHubApiUrl(given: string): string {
  const raw = given.trim();
  if (raw === '') return GITHUB_API_URL;
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw new ConfigError(`GITHUB_API_URL is not a URL: "${raw}".`);
  }
  const loopback = isLoopbackUrl(url);
  if (url.protocol !== 'https:' && !(url.protocol === 'http:' && loopback))
    throw new ConfigError(
      `GITHUB_API_URL must be https (plain http only on this machine: 127.0.0.1 or localhost), got "${raw}".`,
    );
  if (url.username !== '' || url.password !== '' || url.search !== '')
    throw new ConfigError('GITHUB_API_URL must not carry credentials or a query.');
  return url.toString().replace(/\/+$/, '');
}
