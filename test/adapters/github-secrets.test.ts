import { describe, expect, it } from 'vitest';
import { toGitHubError } from '../../src/adapters/github/errors.js';
import { secretsOf } from '../../src/app/env.js';

/** A token of no known format (GitHub Enterprise's older tokens, a proxy's): only its value can catch it. */
const TOKEN = 'ent-token-6f1c2e9a';

/** What octokit's RequestError carries, answered with a body that quotes the token. */
function refused(status: number) {
  return Object.assign(new Error(`Bad credentials for ${TOKEN}`), {
    name: 'HttpError',
    status,
    response: { headers: {}, data: { message: `Bad credentials for ${TOKEN}` } },
  });
}

describe('the GitHub token in what a failure says', () => {
  it.each([401, 403, 404, 422, 500])('is redacted when a %i answer quotes it', (status) => {
    const error = toGitHubError(refused(status), { action: 'read the repository', token: TOKEN });
    expect(error.message).not.toContain(TOKEN);
  });

  it('counts GH_TOKEN among the secrets: gh hands it out as `gh auth token`', () => {
    expect(secretsOf({ GH_TOKEN: TOKEN })).toContain(TOKEN);
    expect(secretsOf({ GH_TOKEN: '${GH_TOKEN}' })).toEqual([]);
  });
});
