import { existsSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import type { FakeAgentContext } from './fake-jules-model.js';

/** What the fake Jules keeps of a session across restarts: enough to replay its (deterministic) life. */
export interface StoredSession {
  readonly id: string;
  readonly body: Record<string, unknown>;
  readonly context: FakeAgentContext;
  readonly planApproved: boolean;
  readonly messages: readonly string[];
}

/**
 * The fake Jules' sessions on disk, so a fake restarted after its process was killed still knows
 * every session it created — as the real Jules outlives its clients. Written whole and renamed over
 * (a kill leaves the old or the new list, never a torn one).
 */
export function fakeJulesStore(path: string) {
  return {
    load(): StoredSession[] {
      if (!existsSync(path)) return [];
      const data = JSON.parse(readFileSync(path, 'utf8')) as { sessions?: StoredSession[] };
      return data.sessions ?? [];
    },
    save(sessions: readonly StoredSession[]): void {
      const temp = `${path}.${process.pid}.tmp`;
      writeFileSync(temp, `${JSON.stringify({ version: 1, sessions })}\n`);
      renameSync(temp, path);
    },
  };
}
