import { describe, expect, it } from 'vitest';
import { createGitHubHost } from '../../src/adapters/github/github-host.js';
import type { FakeGitHubFault } from '../../src/offline/fake-github.js';
import { TOKENS, testOctokit, useFakeGitHub } from '../helpers/github.js';

/**
 * Every GitHub call passes one gate per token that knows GitHub's current limit: after GitHub said
 * to wait longer than maker waits, no other request (another client of the same token included,
 * as the pull request keeper and the final pull request step are) reaches GitHub until then.
 */
const startFake = useFakeGitHub();

describe('the GitHub gate', () => {
  it.each<{ name: string; fault: FakeGitHubFault; says: RegExp }>([
    {
      name: 'a 120 s secondary limit',
      fault: {
        kind: 'secondary-limit',
        retryAfter: 120,
        method: 'GET',
        path: '^/repos/alice/app$',
      },
      says: /secondary rate limit .* answers again after/,
    },
    {
      name: 'the primary limit at 0 for an hour',
      fault: {
        kind: 'primary-limit',
        resetInSeconds: 3600,
        method: 'GET',
        path: '^/repos/alice/app$',
      },
      says: /rate limit .* answers again after/,
    },
  ])(
    '$name: the next calls, from any client of the token, are not sent',
    async ({ fault, says }) => {
      // Failed at main: the second client's GET reached GitHub at once.
      const fake = await startFake();
      await testOctokit(fake).rest.repos.createForAuthenticatedUser({
        name: 'app',
        auto_init: true,
      });
      const host = () => createGitHubHost({ token: TOKENS.full, baseUrl: fake.baseUrl });
      fake.addFault(fault);
      const first = await host()
        .ensureRepository({ owner: 'alice', name: 'app' })
        .catch((e: unknown) => e);
      expect(first).toMatchObject({ kind: 'rate-limited' });
      const sent = fake.requests.length;
      for (const client of [host(), host()]) {
        const later = await client
          .ensureRepository({ owner: 'alice', name: 'app' })
          .catch((e: unknown) => e);
        expect(later).toMatchObject({ kind: 'rate-limited' });
        expect((later as Error).message).toMatch(says);
      }
      expect(fake.requests.length).toBe(sent);
      // Another token is not held.
      const other = createGitHubHost({ token: TOKENS.other, baseUrl: fake.baseUrl });
      await expect(other.whoAmI()).resolves.toMatchObject({ login: 'mallory' });
    },
  );
});
