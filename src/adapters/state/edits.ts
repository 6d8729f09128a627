/**
 * Edit records of the state log: what changed in a node or a run head since the object's previous
 * line, and nothing else, so that a line costs what changed however often an object is saved (a
 * leaf is saved some ten times as its votes are drawn: written whole each time, its fields and
 * its votes' earlier draws were most of what the log held).
 *
 *     {"run":"r1","id":"0-1","edit":{"set":{"status":"sampling"},"unset":["error"],"votes":{…}}}
 *     {"run":"r1","headEdit":{"set":{"eventSeq":12}}}
 *
 * `set` assigns top-level fields and `unset` removes them. `votes` (nodes only) holds, per vote
 * field, either `{"whole":vote}` or a {@link VotePatch}: the vote's own fields (all but its draws
 * and ballots), when they changed, and its draws and ballots that changed, by slot.
 */

type Json = Record<string, unknown>;
/** Far more draws than any vote takes: a slot past it is a damaged line, not a vote. */
const MAX_SLOT = 100_000;
const isRecord = (v: unknown): v is Json =>
  typeof v === 'object' && v !== null && !Array.isArray(v);

/**
 * Adds to `set` (`"key":value` members) and `unset` (quoted keys) what turns the object whose JSON
 * text is `before` into the one whose text is `after`. Both texts are a JSON object each, already
 * redacted: the values are taken from them, so nothing unredacted is written.
 */
export function fieldChanges(before: string, after: string, set: string[], unset: string[]): void {
  if (before === after) return;
  const old = JSON.parse(before) as Json;
  const now = JSON.parse(after) as Json;
  for (const key in now) {
    const text = JSON.stringify(now[key]);
    if (!(key in old) || JSON.stringify(old[key]) !== text)
      set.push(`${JSON.stringify(key)}:${text}`);
  }
  for (const key in old) if (!(key in now)) unset.push(JSON.stringify(key));
}

/** The `"set":{…},"unset":[…]` members of an edit (each only when not empty), with a leading comma. */
export function fieldMembers(set: readonly string[], unset: readonly string[]): string {
  return (
    (set.length === 0 ? '' : `,"set":{${set.join(',')}}`) +
    (unset.length === 0 ? '' : `,"unset":[${unset.join(',')}]`)
  );
}

/** The text of a run head's edit record, or '' when `before` and `after` hold the same. */
export function headEdit(runId: string, before: string, after: string): string {
  const set: string[] = [];
  const unset: string[] = [];
  fieldChanges(before, after, set, unset);
  const members = fieldMembers(set, unset);
  return members === ''
    ? ''
    : `{"run":${JSON.stringify(runId)},"headEdit":{${members.slice(1)}}}\n`;
}

/** What changed in a vote: its own fields (whole), and its draws and ballots that changed, by slot. */
export interface VotePatch {
  readonly fields?: Json;
  readonly draws?: Record<string, unknown>;
  readonly ballots?: Record<string, unknown>;
}

/**
 * Applies an edit record's body to `target` (a node or a run head, raw JSON). Returns a problem,
 * in words, when the edit cannot apply (a patch for a vote the target does not have); undefined
 * when it applied.
 */
export function applyEdit(target: Json, edit: Json): string | undefined {
  const set = edit['set'];
  if (isRecord(set)) assign(target, set);
  const unset = edit['unset'];
  if (Array.isArray(unset))
    for (const key of unset) if (typeof key === 'string') delete target[key];
  const votes = edit['votes'];
  if (!isRecord(votes)) return undefined;
  for (const field in votes) {
    const change = votes[field];
    if (!isRecord(change)) return `its change to the vote ${field} is not an object`;
    if ('whole' in change) {
      target[field] = change['whole'];
      continue;
    }
    const vote = target[field];
    if (!isRecord(vote)) return `it changes the vote ${field}, which the node does not have`;
    const problem = patchVote(vote, change);
    if (problem !== undefined) return `${problem} of the vote ${field}`;
  }
  return undefined;
}

/** `Object.assign` of a parsed line's fields, but a `__proto__` key (which would set the prototype). */
function assign(target: Json, fields: Json): void {
  for (const key of Object.keys(fields)) if (key !== '__proto__') target[key] = fields[key];
}

function patchVote(vote: Json, patch: VotePatch): string | undefined {
  if (patch.fields !== undefined) {
    if (!isRecord(patch.fields)) return 'it changes the fields';
    for (const key of Object.keys(vote)) if (key !== 'draws' && key !== 'ballots') delete vote[key];
    assign(vote, patch.fields);
  }
  for (const list of ['draws', 'ballots'] as const) {
    const slots = patch[list];
    if (slots === undefined) continue;
    if (!isRecord(slots)) return `it changes the ${list}`;
    const items = Array.isArray(vote[list]) ? (vote[list] as unknown[]) : (vote[list] = []);
    for (const slot in slots) {
      const i = Number(slot);
      if (!Number.isInteger(i) || i < 0 || i > MAX_SLOT)
        return `it names slot "${slot}" in the ${list}`;
      while (items.length < i) items.push(null);
      items[i] = slots[slot];
    }
  }
  return undefined;
}
