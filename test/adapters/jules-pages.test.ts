import { describe, expect, it } from 'vitest';
import { allPages, MAX_PAGES } from '../../src/adapters/jules/pages.js';
import { PATCH } from '../helpers/jules-worker.js';
import { useJulesWorld } from '../helpers/jules-world.js';

const world = useJulesWorld();

const listings = (requests: readonly { method: string; path: string }[], path: RegExp) =>
  requests.filter((r) => r.method === 'GET' && path.test(r.path)).length;

/** The last page's token: back to a page already read, or "". */
const BROKEN_TOKENS = [
  ['a repeated', 'repeat'],
  ['an empty', 'empty'],
] as const;

describe('a listing whose page tokens loop ends', () => {
  it.each(BROKEN_TOKENS)(
    'sessions: %s last-page token ends the look-up after a lost create (one session, few pages)',
    async (_name, kind) => {
      // Failed at main: the look-up followed the token back to a page already read (or "" to the
      // first page) 50 times in a row, until the fake stopped looping.
      const w = await world({
        lateCreate: (n) => (n === 1 ? 0 : undefined),
        pageTokens: { kind, pageSize: 2 },
      });
      const out = await w.worker.run(w.task, 0, undefined, w.hooks);
      expect(out).toMatchObject({ ok: true, patch: PATCH });
      expect(w.fake.sessions.size).toBe(1);
      // One session, one page; a repeated token is followed once, at most.
      expect(listings(w.fake.requests, /^\/v1alpha\/sessions$/)).toBeLessThanOrEqual(2);
    },
  );

  it.each(BROKEN_TOKENS)(
    'activities: %s last-page token ends the read of a session’s activities',
    async (_name, kind) => {
      // Failed at main, as for sessions. The patch is only in the activities, over several pages.
      const w = await world({
        agent: () => ({ patch: PATCH, patchOnlyInActivities: true }),
        pageTokens: { kind, pageSize: 2 },
      });
      const out = await w.worker.run(w.task, 0, undefined, w.hooks);
      expect(out).toMatchObject({ ok: true, patch: PATCH });
      // planGenerated, progressUpdated (with the changeSet), sessionCompleted: two pages, and a
      // repeated token followed once at most.
      expect(listings(w.fake.requests, /\/activities$/)).toBeLessThanOrEqual(3);
    },
  );
});

describe('allPages', () => {
  it('keeps each item once when a token leads back to a page read under no token', async () => {
    // Page 1 (no token) → "2" → "0" (page 1 again) → "2": seen, so the listing ends.
    const pages: Record<string, { items: number[]; next?: string }> = {
      '': { items: [1, 2], next: '2' },
      '0': { items: [1, 2], next: '2' },
      '2': { items: [3], next: '0' },
    };
    const asked: string[] = [];
    const items = await allPages(
      (token) => {
        asked.push(token ?? '');
        const page = pages[token ?? ''] ?? { items: [] };
        return Promise.resolve({ items: page.items, nextPageToken: page.next });
      },
      (n) => String(n),
    );
    expect(items).toEqual([1, 2, 3]);
    expect(asked).toEqual(['', '2', '0']);
  });

  it('ends after MAX_PAGES pages of tokens that never repeat', async () => {
    let n = 0;
    const items = await allPages((token) =>
      Promise.resolve({ items: [token ?? 'first'], nextPageToken: `t${++n}` }),
    );
    expect(items).toHaveLength(MAX_PAGES);
  });
});
