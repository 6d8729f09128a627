import { describe, expect, it } from 'vitest';
import type { GitHubError } from '../../src/adapters/github/errors.js';
import { createGitHubHost } from '../../src/adapters/github/github-host.js';
import type { RateLimitWait } from '../../src/adapters/github/octokit.js';
import type { FakeGitHub } from '../../src/offline/fake-github.js';
import { TOKENS, useFakeGitHub } from '../helpers/github.js';

/** GitHubHost through 5xx answers and GitHub's rate limits (octokit's retry and throttling plugins). */
const startFake = useFakeGitHub();

function hostFor(fake: FakeGitHub) {
  const host = createGitHubHost({
    token: TOKENS.full,
    baseUrl: fake.baseUrl,
    throttle: false,
    retryAfterBaseValue: 1,
    sleep: () => Promise.resolve(),
  });
  return { host };
}

const count = (fake: FakeGitHub, method: string, path: RegExp) =>
  fake.requests.filter((r) => r.method === method && path.test(r.path)).length;

describe('GitHubHost: transient failures and rate limits', () => {
  it('retries reads through 5xx', async () => {
    const fake = await startFake();
    const { host } = hostFor(fake);
    fake.addFault({
      kind: 'status',
      status: 502,
      method: 'GET',
      path: '^/repos/alice/app$',
      times: 2,
    });
    await expect(host.ensureRepository({ owner: 'alice', name: 'app' })).resolves.toMatchObject({
      created: true,
    });
    expect(count(fake, 'GET', /^\/repos\/alice\/app$/)).toBe(3);
  });

  it('waits out a secondary rate limit through the throttling plugin, reporting the wait', async () => {
    const fake = await startFake();
    await hostFor(fake).host.ensureRepository({ owner: 'alice', name: 'app' });
    const waits: RateLimitWait[] = [];
    const host = createGitHubHost({
      token: TOKENS.full,
      baseUrl: fake.baseUrl,
      throttle: { retryAfterBaseValue: 10, fallbackSecondaryRateRetryAfter: 1 },
      onWait: (w) => waits.push(w),
    });
    fake.addFault({ kind: 'secondary-limit', retryAfter: 2, path: '^/repos/alice/app$' });
    const before = Date.now();
    await expect(host.ensureRepository({ owner: 'alice', name: 'app' })).resolves.toMatchObject({
      created: false,
    });
    expect(waits).toHaveLength(1);
    expect(waits[0]?.reason).toBe('secondary-rate-limit');
    expect(waits[0]!.until.getTime()).toBeGreaterThanOrEqual(before + 2000);
  });

  it('stops past the cap, saying when to resume', async () => {
    const fake = await startFake();
    const waits: RateLimitWait[] = [];
    const host = createGitHubHost({
      token: TOKENS.full,
      baseUrl: fake.baseUrl,
      throttle: { retryAfterBaseValue: 10 },
      maxWaitMs: 60_000,
      onWait: (w) => waits.push(w),
    });
    fake.addFault({ kind: 'primary-limit', resetInSeconds: 3600, path: '^/repos/' });
    const error = await host
      .ensureRepository({ owner: 'alice', name: 'app' })
      .catch((e: unknown) => e);
    expect(error).toMatchObject({ kind: 'rate-limited' });
    const resumeAt = (error as GitHubError).resumeAt!.getTime();
    expect(resumeAt).toBeGreaterThan(Date.now() + 3500_000);
    expect((error as Error).message).toContain(
      `answers again after ${new Date(resumeAt).toISOString()}`,
    );
    expect(waits).toEqual([]);
  });
  it('a 429 is the throttling plugin’s alone: waited out within the cap, sent once past it', async () => {
    const fake = await startFake();
    await hostFor(fake).host.ensureRepository({ owner: 'alice', name: 'app' });
    const waits: RateLimitWait[] = [];
    const host = createGitHubHost({
      token: TOKENS.full,
      baseUrl: fake.baseUrl,
      throttle: { retryAfterBaseValue: 10 },
      retryAfterBaseValue: 1,
      onWait: (w) => waits.push(w),
    });
    const reads = () => count(fake, 'GET', /^\/repos\/alice\/app$/);
    fake.addFault({ kind: 'secondary-limit', status: 429, retryAfter: 1, path: '^/repos/' });
    const before = reads();
    await expect(host.ensureRepository({ owner: 'alice', name: 'app' })).resolves.toMatchObject({
      created: false,
    });
    expect(waits).toHaveLength(1);
    expect(reads() - before).toBe(2);
    // Past the cap: no more requests while the limit lasts (GitHub may ban a client that keeps on).
    fake.addFault({
      kind: 'primary-limit',
      status: 429,
      resetInSeconds: 3600,
      path: '^/repos/',
      times: 10,
    });
    const again = reads();
    const error = await host
      .ensureRepository({ owner: 'alice', name: 'app' })
      .catch((e: unknown) => e);
    expect(error).toMatchObject({ kind: 'rate-limited' });
    expect(reads() - again).toBe(1);
  });
});
