import { createHash } from 'node:crypto';
import type { CallOptions, CreateSessionRequest, JulesClient } from './client.js';
import { allPages } from './pages.js';

/**
 * What identifies a slot's session, whenever it was made: its title (which names the run, the node
 * and the slot), its source and starting branch, and the digest of its prompt. Never its time: the
 * `createTime` Jules gives is on Jules' clock, which may be minutes off this machine's.
 */
export interface SessionMatch {
  readonly title: string;
  readonly source: string;
  readonly startingBranch: string;
  /** {@link promptDigest} of the prompt the slot sends. */
  readonly promptDigest: string;
}

/**
 * A prompt's digest (SHA-256, hex), over its text with whitespace runs made one space and the ends
 * trimmed, so a server that tidies whitespace still matches.
 */
export function promptDigest(prompt: string): string {
  return createHash('sha256').update(prompt.trim().replace(/\s+/g, ' ')).digest('hex');
}

/** The identity of the session `request` creates. */
export function sessionMatch(request: CreateSessionRequest): SessionMatch {
  return {
    title: request.title,
    source: request.source,
    startingBranch: request.startingBranch,
    promptDigest: promptDigest(request.prompt),
  };
}

/** The slot's session: the newest matching `match`; undefined when there is none. */
export async function findSession(
  client: JulesClient,
  match: SessionMatch,
  call: CallOptions,
): Promise<string | undefined> {
  return (await matchingSessions(client, match, call))[0];
}

/**
 * The ids of every session matching `match` (title, source, starting branch, prompt digest), newest
 * first by Jules' own `createTime` (one clock for all of them). A session whose listing omits a
 * field is not excluded by it.
 */
export async function matchingSessions(
  client: JulesClient,
  match: SessionMatch,
  call: CallOptions,
): Promise<string[]> {
  const sessions = await allPages(
    (pageToken) =>
      client.listSessions(
        { pageSize: 100, ...(pageToken === undefined ? {} : { pageToken }) },
        call,
      ),
    (s) => s.id,
  );
  const found: { id: string; at: number }[] = [];
  for (const s of sessions) {
    const source = s.sourceContext?.source;
    const branch = s.sourceContext?.githubRepoContext?.startingBranch;
    if (s.title !== match.title) continue;
    if (source != null && source !== match.source) continue;
    if (branch != null && branch !== match.startingBranch) continue;
    if (s.prompt != null && promptDigest(s.prompt) !== match.promptDigest) continue;
    const at = s.createTime == null ? Number.NaN : Date.parse(s.createTime);
    found.push({ id: s.id, at: Number.isNaN(at) ? 0 : at });
  }
  return found.sort((a, b) => b.at - a.at).map((s) => s.id);
}
