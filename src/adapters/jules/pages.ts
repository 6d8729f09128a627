import type { Page } from './client-types.js';

/**
 * Pages a listing is followed for at most: 100,000 items at 100 a page. A server whose tokens never
 * repeat yet never end still ends here.
 */
export const MAX_PAGES = 1000;

/**
 * Every item of one listing, page by page (`page` fetches the page a token names; undefined: the
 * first). A listing ends where its page gives no `nextPageToken` or an empty one (`""`: AIP-158's
 * "no more pages"), at a token already followed in this listing (a server whose tokens lead back
 * to a page already read would otherwise be followed for ever), and after {@link MAX_PAGES}.
 * Items seen twice (a page read again) are kept once, by `key` when given.
 */
export async function allPages<T>(
  page: (token: string | undefined) => Promise<Page<T>>,
  key?: (item: T) => string | undefined,
): Promise<T[]> {
  const items: T[] = [];
  const keys = new Set<string>();
  const followed = new Set<string>();
  let token: string | undefined;
  for (let n = 0; n < MAX_PAGES; n++) {
    const { items: got, nextPageToken } = await page(token);
    for (const item of got) {
      const k = key?.(item);
      if (k !== undefined) {
        if (keys.has(k)) continue;
        keys.add(k);
      }
      items.push(item);
    }
    if (nextPageToken === undefined || nextPageToken === '' || followed.has(nextPageToken)) break;
    followed.add(nextPageToken);
    token = nextPageToken;
  }
  return items;
}
