import { z } from 'zod';
import { errorReply, type Reply } from './github-http.js';

/**
 * Faults the fake GitHub injects into its REST answers, each for the next `times` requests (default
 * 1) whose method and path (a regular expression on the path, default: any) match:
 * - `status`: a 5xx (or any status) instead of the answer (`when: 'before'`, the default: nothing
 *   was done) or after the route did its work (`when: 'after'`: the object exists, the caller
 *   cannot know);
 * - `lost-reply`: the route does its work, then the connection is destroyed without an answer;
 * - `secondary-limit`: 403 (or 429) "You have exceeded a secondary rate limit", with `retry-after`
 *   when given;
 * - `primary-limit`: 403 (or 429) with `x-ratelimit-remaining: 0` and `x-ratelimit-reset` this
 *   many seconds ahead.
 */
export const fakeGitHubFaultSchema = z.discriminatedUnion('kind', [
  z.object({
    kind: z.literal('status'),
    status: z.number().int().min(400).max(599),
    when: z.enum(['before', 'after']).optional(),
    method: z.string().optional(),
    path: z.string().optional(),
    times: z.number().int().min(1).optional(),
  }),
  z.object({
    kind: z.literal('lost-reply'),
    method: z.string().optional(),
    path: z.string().optional(),
    times: z.number().int().min(1).optional(),
  }),
  z.object({
    kind: z.literal('secondary-limit'),
    status: z.union([z.literal(403), z.literal(429)]).optional(),
    retryAfter: z.number().int().min(0).optional(),
    method: z.string().optional(),
    path: z.string().optional(),
    times: z.number().int().min(1).optional(),
  }),
  z.object({
    kind: z.literal('primary-limit'),
    status: z.union([z.literal(403), z.literal(429)]).optional(),
    resetInSeconds: z.number().int().min(0).optional(),
    method: z.string().optional(),
    path: z.string().optional(),
    times: z.number().int().min(1).optional(),
  }),
]);

export type FakeGitHubFault = z.infer<typeof fakeGitHubFaultSchema>;

export class FaultList {
  readonly #faults: { fault: FakeGitHubFault; left: number; path: RegExp | undefined }[] = [];

  add(fault: FakeGitHubFault): void {
    this.#faults.push({
      fault,
      left: fault.times ?? 1,
      path: fault.path === undefined ? undefined : new RegExp(fault.path),
    });
  }

  clear(): void {
    this.#faults.length = 0;
  }

  /** The first armed fault matching this request, counted as used. */
  take(method: string, path: string): FakeGitHubFault | undefined {
    const entry = this.#faults.find(
      (f) =>
        f.left > 0 &&
        (f.fault.method === undefined || f.fault.method.toUpperCase() === method) &&
        (f.path === undefined || f.path.test(path)),
    );
    if (entry === undefined) return undefined;
    entry.left -= 1;
    return entry.fault;
  }
}

/** The answer a rate-limit or `status` fault gives in place of the route's. */
export function faultReply(fault: FakeGitHubFault, nowSeconds: number): Reply | undefined {
  switch (fault.kind) {
    case 'status':
      return errorReply(fault.status, fault.status >= 500 ? 'Server Error' : 'Injected fault');
    case 'secondary-limit':
      return errorReply(
        fault.status ?? 403,
        'You have exceeded a secondary rate limit. Please wait a few minutes before you try again. If you reach out to GitHub Support for help, please include the request ID 0000:0000:000000:000000:00000000.',
        {
          docs: 'https://docs.github.com/rest/overview/rate-limits-for-the-rest-api#about-secondary-rate-limits',
          headers:
            fault.retryAfter === undefined ? {} : { 'retry-after': String(fault.retryAfter) },
        },
      );
    case 'primary-limit':
      return errorReply(
        fault.status ?? 403,
        'API rate limit exceeded for user ID 1. If you reach out to GitHub Support for help, please include the request ID 0000:0000:000000:000000:00000000.',
        {
          docs: 'https://docs.github.com/rest/overview/rate-limits-for-the-rest-api',
          headers: {
            'x-ratelimit-remaining': '0',
            'x-ratelimit-reset': String(nowSeconds + (fault.resetInSeconds ?? 60)),
          },
        },
      );
    case 'lost-reply':
      return undefined;
  }
}
