import { open } from 'node:fs/promises';
import { journalRecords } from '../../core/journal-lines.js';
import { logEntry } from './model.js';
import type { LogEntry } from './protocol.js';

/** The most bytes read from the end of a journal for a page's first activity log. */
const TAIL_BYTES = 256 * 1024;

/** Reads whole lines appended to a JSONL file since `offset`; a torn last line waits for its end. */
export async function readAppended(
  path: string,
  offset: number,
): Promise<{ records: Record<string, unknown>[]; offset: number }> {
  let handle;
  try {
    handle = await open(path, 'r');
  } catch {
    return { records: [], offset: 0 };
  }
  try {
    const { size } = await handle.stat();
    // A journal that shrank was replaced: start again from its beginning.
    const from = size < offset ? 0 : offset;
    if (size === from) return { records: [], offset: from };
    const buffer = Buffer.alloc(size - from);
    await handle.read(buffer, 0, buffer.length, from);
    const end = buffer.lastIndexOf(0x0a);
    if (end < 0) return { records: [], offset: from };
    return {
      records: journalRecords(buffer.subarray(0, end).toString('utf8')),
      offset: from + end + 1,
    };
  } finally {
    await handle.close();
  }
}

/** The last `max` entries of `runId` in the journal at `path` (read from its last 256 KiB). */
export async function journalTail(path: string, runId: string, max = 200): Promise<LogEntry[]> {
  let handle;
  try {
    handle = await open(path, 'r');
  } catch {
    return [];
  }
  try {
    const { size } = await handle.stat();
    const from = Math.max(0, size - TAIL_BYTES);
    const buffer = Buffer.alloc(size - from);
    await handle.read(buffer, 0, buffer.length, from);
    let text = buffer.toString('utf8');
    // Reading from the middle of the file: the first line is a fragment.
    if (from > 0) text = text.slice(text.indexOf('\n') + 1);
    return journalRecords(text)
      .filter((r) => r['runId'] === runId)
      .map((r) => logEntry(r))
      .filter((e): e is LogEntry => e !== undefined)
      .slice(-max);
  } finally {
    await handle.close();
  }
}
