import { readFile } from 'node:fs/promises';
import { applyEdit } from './edits.js';
import { StateFileError } from './versioned-json-file.js';

/**
 * The state log (`maker-state.json.log`): a header line naming the snapshot generation it follows,
 * then one JSON record a line, each replacing what the one before it said:
 *
 *     {"$log":"maker-state","generation":3}
 *     {"run":"r1","head":{…the run without its nodes…}}
 *     {"run":"r1","id":"0-1","node":{…the whole node…}}
 *     {"run":"r1","id":"0-1","part":{…the node's fields but its votes, and the votes that changed…}}
 *     {"run":"r1","id":"0-1","edit":{"set":{…},"unset":[…],"votes":{…}}}
 *     {"run":"r1","headEdit":{"set":{…},"unset":[…]}}
 *     {"ledger":{…}}
 *     {"starting":{…a run being started, not created yet…}}
 *
 * A `part` (written since issue #13's last save share; logs without it load as before) replaces
 * every field of the node except its votes ({@link NODE_VOTE_FIELDS}), and those of its votes it
 * carries; the node's other votes stay. It always follows a whole `node` for that node, here or in
 * the snapshot. Since issue #29 a changed node or run head is written as an `edit` (`headEdit`):
 * only the fields that changed, and its votes' draws that changed (`edits.ts`), so a line costs
 * what changed however often the object is saved; `part` records are still read.
 *
 * A save of several records is one line, `{"save":[…records…]}` ({@link saveText}), so that an
 * append torn by a crash or a power loss loses that whole save, never a part of it (a parent
 * without the child it names). Logs whose saves are loose lines load as before.
 */
export const LOG_MARK = 'maker-state';

/** A node's vote fields: the only ones a `part` record may leave out without removing them. */
export const NODE_VOTE_FIELDS = ['minimal', 'split', 'leaf', 'integrations'] as const;

export function logHeader(generation: number): string {
  return `{"$log":"${LOG_MARK}","generation":${generation}}\n`;
}

/** The text one save appends: its lines (each a record and its `\n`), as one line when there are several. */
export function saveText(lines: readonly string[]): string {
  if (lines.length === 1) return lines[0] as string;
  return `{"save":[${lines.map((line) => line.slice(0, -1)).join(',')}]}\n`;
}

/** A log read from disk: the generation it follows and its records (a torn last line left out). */
export interface StateLog {
  readonly generation: number;
  readonly records: readonly Record<string, unknown>[];
}

type Json = Record<string, unknown>;
const isRecord = (v: unknown): v is Json =>
  typeof v === 'object' && v !== null && !Array.isArray(v);

/**
 * Reads the log at `path`; undefined when there is none. The last line may be torn (a crash during
 * an append): it is ignored. Any other line that is not a record is a {@link StateFileError}.
 */
export async function readStateLog(path: string): Promise<StateLog | undefined> {
  let text: string;
  try {
    text = await readFile(path, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw new StateFileError(
      path,
      'unreadable',
      `cannot read the state log (${(error as Error).message}).`,
      error,
    );
  }
  const lines = text.split('\n');
  const header = parseLine(lines[0] ?? '');
  if (header?.['$log'] !== LOG_MARK || typeof header['generation'] !== 'number') {
    throw new StateFileError(
      path,
      'foreign',
      'this is not a MAKER state log (its first line is not the log header). Move it aside to continue from maker-state.json alone.',
    );
  }
  const records: Json[] = [];
  let lastLine = lines.length - 1;
  while (lastLine > 0 && lines[lastLine] === '') lastLine -= 1;
  for (let i = 1; i <= lastLine; i++) {
    const line = lines[i] as string;
    if (line === '') continue;
    const parsed = parseLine(line);
    const saved = parsed === undefined ? undefined : savedRecords(parsed);
    if (saved === undefined) {
      if (i === lastLine) break; // torn by a crash during the append: it was never acknowledged
      throw new StateFileError(
        path,
        'corrupt',
        `line ${i + 1} of the state log is not a state record. Move the log aside to continue from maker-state.json alone (losing what the log adds), or restore a backup.`,
      );
    }
    records.push(...saved);
  }
  return { generation: header['generation'], records };
}

function parseLine(line: string): Json | undefined {
  try {
    const value: unknown = JSON.parse(line);
    return isRecord(value) ? value : undefined;
  } catch {
    return undefined;
  }
}

/** The records a line holds: itself, or a save's; undefined when it is not a log line. */
function savedRecords(line: Json): Json[] | undefined {
  const save = line['save'];
  if (!Array.isArray(save)) return isLogRecord(line) ? [line] : undefined;
  return save.every((r): r is Json => isRecord(r) && isLogRecord(r)) ? save : undefined;
}

function isLogRecord(r: Json): boolean {
  if (isRecord(r['ledger']) || isRecord(r['starting'])) return true;
  if (typeof r['run'] !== 'string') return false;
  if (isRecord(r['head']) || isRecord(r['headEdit'])) return true;
  return (
    typeof r['id'] === 'string' &&
    (isRecord(r['node']) || isRecord(r['part']) || isRecord(r['edit']))
  );
}

const VOTE_FIELDS: ReadonlySet<string> = new Set(NODE_VOTE_FIELDS);
const MOVE_ASIDE =
  'Move the log aside to continue from maker-state.json alone (losing what the log adds), or restore a backup.';

/**
 * Applies the records, in order, to a state document (raw JSON, validated afterwards by the
 * caller). A `part` for a node neither the document nor an earlier record holds is a
 * {@link StateFileError} (`corrupt`), naming `path`.
 */
export function replay(document: Json, records: readonly Json[], path: string): Json {
  const runs = isRecord(document['runs']) ? document['runs'] : {};
  for (const r of records) {
    if (isRecord(r['ledger'])) {
      document['ledger'] = r['ledger'];
      continue;
    }
    if (isRecord(r['starting'])) {
      document['starting'] = r['starting'];
      continue;
    }
    const runId = r['run'] as string;
    const existing = runs[runId];
    const run: Json = isRecord(existing) ? existing : { nodes: {} };
    runs[runId] = run;
    if (isRecord(r['head'])) {
      const nodes = run['nodes'];
      for (const key of Object.keys(run)) delete run[key];
      Object.assign(run, r['head'], { nodes: isRecord(nodes) ? nodes : {} });
    } else if (isRecord(r['headEdit'])) {
      const nodes = run['nodes'];
      const problem = isRecord(existing) ? applyEdit(run, r['headEdit']) : 'it was never written';
      if (problem !== undefined)
        throw new StateFileError(
          path,
          'corrupt',
          `the state log changes run ${runId}, but ${problem}. ${MOVE_ASIDE}`,
        );
      run['nodes'] = nodes; // an edit of the head never touches its nodes
    } else {
      const nodes = isRecord(run['nodes']) ? run['nodes'] : (run['nodes'] = {});
      const id = r['id'] as string;
      if (isRecord(r['node'])) {
        nodes[id] = r['node'];
        continue;
      }
      const node = nodes[id];
      if (!isRecord(node)) {
        throw new StateFileError(
          path,
          'corrupt',
          `the state log changes node ${id} of run ${runId}, which it never wrote whole. ${MOVE_ASIDE}`,
        );
      }
      if (isRecord(r['edit'])) {
        const problem = applyEdit(node, r['edit']);
        if (problem !== undefined)
          throw new StateFileError(
            path,
            'corrupt',
            `the state log changes node ${id} of run ${runId}, but ${problem}. ${MOVE_ASIDE}`,
          );
        continue;
      }
      for (const key of Object.keys(node)) if (!VOTE_FIELDS.has(key)) delete node[key];
      Object.assign(node, r['part']);
    }
  }
  document['runs'] = runs;
  return document;
}
