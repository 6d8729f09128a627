import { describe, expect, it } from 'vitest';
import { createOctokit } from '../../src/adapters/github/octokit.js';

/**
 * GitHub asks its clients to space their writes (octokit's throttling plugin: 1 s apart, 3 s for
 * those that notify someone). MAKER keeps that pacing for GitHub's servers and drops it for a
 * GitHub on this machine (the fake of `maker demo` and of the tests), where it only made runs wait.
 * No request leaves the process: `fetch` is the test's, which answers and notes when it was asked.
 */
async function writeTimes(baseUrl: string): Promise<number[]> {
  const times: number[] = [];
  const fetch: typeof globalThis.fetch = () => {
    times.push(Date.now());
    return Promise.resolve(
      new Response(JSON.stringify({ id: times.length }), {
        status: 201,
        headers: { 'content-type': 'application/json' },
      }),
    );
  };
  const octokit = createOctokit({ token: 'not-a-real-token', baseUrl, fetch });
  // A label is a plain write (1 s apart on GitHub); a pull request also notifies (3 s apart).
  for (const name of ['a', 'b'])
    await octokit.rest.issues.createLabel({ owner: 'o', repo: 'r', name });
  for (const head of ['c', 'd'])
    await octokit.rest.pulls.create({ owner: 'o', repo: 'r', head, base: 'main' });
  return times;
}

describe('the pace of writes to GitHub', () => {
  it('spaces writes to GitHub’s servers as GitHub asks', async () => {
    const [label1, label2, pull1, pull2] = await writeTimes('https://github.example/api/v3');
    expect(label2! - label1!).toBeGreaterThanOrEqual(900);
    expect(pull2! - pull1!).toBeGreaterThanOrEqual(2_900);
  }, 20_000);

  it('sends writes to a GitHub on this machine at once', async () => {
    for (const host of ['http://127.0.0.1:9', 'http://localhost:9']) {
      const times = await writeTimes(host);
      expect(times.at(-1)! - times[0]!, host).toBeLessThan(500);
    }
  });
});
