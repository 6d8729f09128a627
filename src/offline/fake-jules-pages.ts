import type { FakePageTokens } from './fake-jules-model.js';

/**
 * The fake Jules' pages (AIP-158): `pageSize` (1–100, `defaultSize` when absent) items from the
 * offset a `pageToken` names, with a `nextPageToken` while more remain, omitted on the last page;
 * unless `broken` says the last page of a session or activity list carries a token anyway (see
 * {@link FakePageTokens}).
 */
export function fakePages(broken: FakePageTokens | undefined) {
  /** Last pages served with a misbehaving token, per listing. */
  const loops = new Map<string, number>();
  return (
    listing: string,
    items: readonly unknown[],
    field: string,
    defaultSize: number,
    query: URLSearchParams | undefined,
  ): Record<string, unknown> => {
    const asked = Math.min(100, Math.max(1, Number(query?.get('pageSize') ?? defaultSize)));
    const size = Math.min(asked, broken?.pageSize ?? asked);
    const token = query?.get('pageToken') ?? undefined;
    const start = Number(token ?? '0') || 0;
    const page = { [field]: items.slice(start, start + size) };
    if (start + size < items.length) return { ...page, nextPageToken: String(start + size) };
    const looped = loops.get(listing) ?? 0;
    if (broken === undefined || field === 'sources' || looped >= (broken.loops ?? 50)) return page;
    loops.set(listing, looped + 1);
    return { ...page, nextPageToken: broken.kind === 'empty' ? '' : (token ?? '0') };
  };
}
