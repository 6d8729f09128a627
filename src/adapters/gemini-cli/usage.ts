import { readFile, readdir, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { z } from 'zod';

/**
 * The tokens one Gemini CLI session used, as Gemini CLI recorded them: its chat recording (in
 * MAKER's private home, `private-home.ts`) keeps each answer's usage, hidden reasoning included,
 * which ACP's own counts leave out. Read once the call is over, then removed with it.
 */

export interface SessionUsage {
  readonly inputTokens: number;
  readonly outputTokens: number;
  readonly thoughtTokens: number;
}

const recordSchema = z
  .object({
    id: z.string(),
    type: z.string(),
    tokens: z
      .object({ input: z.number(), output: z.number(), thoughts: z.number().optional() })
      .loose(),
  })
  .loose();

/**
 * The usage of session `sessionId` recorded under `home` (a Gemini CLI home), summed over its
 * answers (the last record of each wins: an answer's record is rewritten as it grows); undefined
 * when Gemini CLI recorded none. The session's recording is removed.
 */
export async function takeSessionUsage(
  home: string,
  sessionId: string,
): Promise<SessionUsage | undefined> {
  const file = await findRecording(home, sessionId);
  if (file === undefined) return undefined;
  try {
    const answers = new Map<string, z.infer<typeof recordSchema>['tokens']>();
    for (const line of (await readFile(file, 'utf8')).split('\n')) {
      if (!line.includes('"tokens"')) continue;
      let json: unknown;
      try {
        json = JSON.parse(line);
      } catch {
        continue;
      }
      const record = recordSchema.safeParse(json);
      if (record.success && record.data.type === 'gemini')
        answers.set(record.data.id, record.data.tokens);
    }
    if (answers.size === 0) return undefined;
    const all = [...answers.values()];
    return {
      inputTokens: all.reduce((sum, t) => sum + t.input, 0),
      outputTokens: all.reduce((sum, t) => sum + t.output, 0),
      thoughtTokens: all.reduce((sum, t) => sum + (t.thoughts ?? 0), 0),
    };
  } finally {
    await rm(file, { force: true });
  }
}

/** `<home>/.gemini/tmp/<project>/chats/session-<time>-<first 8 of the id>.jsonl`. */
async function findRecording(home: string, sessionId: string): Promise<string | undefined> {
  const tmp = join(home, '.gemini', 'tmp');
  const suffix = `-${sessionId.slice(0, 8)}.jsonl`;
  const projects = await readdir(tmp).catch(() => [] as string[]);
  for (const project of projects) {
    const chats = join(tmp, project, 'chats');
    for (const name of await readdir(chats).catch(() => [] as string[]))
      if (name.startsWith('session-') && name.endsWith(suffix)) {
        const file = join(chats, name);
        const head = (await readFile(file, 'utf8').catch(() => '')).slice(0, 300);
        if (head.includes(sessionId)) return file;
      }
  }
  return undefined;
}
