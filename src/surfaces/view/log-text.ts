import { poolingSaid } from '../../core/view/pooling.js';

/**
 * A journal record (or engine event) as a sentence for the page's activity log: what happened,
 * in words, never the record's fields as developer text (`key=[{"acceptance":…`). Fields are read
 * defensively: a journal is a file another version of MAKER may have written.
 */
export function logText(record: Readonly<Record<string, unknown>>): string {
  const fields = fieldsOf(record);
  return (
    runWords(fields) ??
    subtaskWords(fields) ??
    voteWords(fields) ??
    landingWords(fields) ??
    checksWords(fields) ??
    questionAndWaitWords(fields) ??
    unknownWords(record)
  );
}

/** An event as the terminal's progress line says it: its node, then what happened, in words. */
export function eventWords(record: Readonly<Record<string, unknown>>): string {
  const node = record['nodeId'];
  return `${typeof node === 'string' ? `node ${node}: ` : ''}${logText(record)}`;
}

/** A record's fields, read defensively: a field of another type reads as absent. */
interface Fields {
  readonly type: unknown;
  readonly record: Readonly<Record<string, unknown>>;
  readonly str: (name: string) => string | undefined;
  readonly num: (name: string) => number | undefined;
}

function fieldsOf(record: Readonly<Record<string, unknown>>): Fields {
  return {
    type: record['type'],
    record,
    str: (name) => {
      const v = record[name];
      return typeof v === 'string' ? v : undefined;
    },
    num: (name) => {
      const v = record[name];
      return typeof v === 'number' ? v : undefined;
    },
  };
}

/** The run's start and end; undefined for any other event. */
function runWords({ type, record, str }: Fields): string | undefined {
  switch (type) {
    case 'run-start':
      return `${record['resumed'] === true ? 'Run resumed' : 'Run started'}: ${clipped(str('idea') ?? '', 80)}`;
    case 'run-end':
      return `Run ended: ${statusWords(str('status'))}${str('error') === undefined ? '' : ` (${clipped(str('error') ?? '', 120)})`}`;
    default:
      return undefined;
  }
}

/** A subtask's life in the tree: started, sized, split, pooled, reopened (or not). */
function subtaskWords({ type, record, str, num }: Fields): string | undefined {
  switch (type) {
    case 'node-start':
      return `started: ${clipped(str('title') ?? '', 80)}`;
    case 'node-minimal':
      return record['minimal'] === true ? 'is small enough: one change' : 'will be split';
    case 'node-split': {
      const children = Array.isArray(record['children']) ? record['children'].length : 0;
      return `split into ${children} subtask${children === 1 ? '' : 's'}`;
    }
    case 'behaviour-pooled':
      return `subtask ${str('nodeId') ?? '?'}: ${poolingSaid({ texts: num('texts') ?? 0, behaviours: num('behaviours') ?? 0, byText: num('byText') ?? 0 })}`;
    case 'node-reopened':
      return clipped(str('reason') ?? `subtask ${str('nodeId') ?? '?'} reopened`, 200);
    case 'not-reopened':
      return `a failure not traced: ${str('reason') ?? ''}`;
    default:
      return undefined;
  }
}

/** A vote from its start to its end: its samples, its judges' ballots, its k, its winner. */
function voteWords(fields: Fields): string | undefined {
  const { type, str, num } = fields;
  const vote = voteName(str('vote'));
  switch (type) {
    case 'vote-start':
      return `vote begins: ${vote}`;
    case 'sample-drawn':
      return str('vote')?.endsWith('-ballot') === true
        ? `${vote}: judge #${num('slot') ?? '?'} cast a ballot${shortKey(str('key'), 'for ')}`
        : `${vote}: sample #${num('slot') ?? '?'} drawn${shortKey(str('key'))}`;
    case 'sample-flagged':
      return `${vote}: sample #${num('slot') ?? '?'} red-flagged${flagRules(fields.record['flags'])}`;
    case 'vote-end':
      return voteEndWords(vote, fields);
    case 'vote-k-raised':
      return `${vote}: a narrow win, k raised ${num('from') ?? '?'} → ${num('to') ?? '?'} (${str('reason') ?? ''})`;
    case 'vote-k-stood':
      return `${vote}: did not settle at k = ${num('k') ?? '?'}; the decision at k = ${num('stoodAt') ?? '?'} stands`;
    case 'vote-text-chosen':
      return `${vote}: the winning behaviour has ${num('texts') ?? '?'} texts; sample #${num('slot') ?? '?'} lands, ${chosenHow(str('by'))}`;
    default:
      return undefined;
  }
}

/** A red-flagged sample's rules, in brackets (nothing when it names none). */
function flagRules(flags: unknown): string {
  const rules = Array.isArray(flags)
    ? flags
        .map((f) =>
          typeof f === 'object' && f !== null ? String((f as { rule?: unknown }).rule) : '',
        )
        .filter((r) => r !== '')
    : [];
  return rules.length === 0 ? '' : ` (${rules.join(', ')})`;
}

/** A vote's end: how it was decided, with its counts and k. */
function voteEndWords(vote: string, { str, num }: Fields): string {
  const ballots = str('ballots');
  const counts = `${num('votes') ?? 0} : ${num('runnerUpVotes') ?? 0} sample votes${ballots === undefined ? '' : `; judges' ballots ${ballots.replace(':', ' : ')}`}`;
  const status = str('status');
  const said =
    status === 'decided' ? 'decided' : status === 'human' ? 'chosen by a person' : 'undecided';
  const k = num('k');
  return `${vote} ${said} (${counts}${k === undefined ? '' : `, at k = ${k}`})`;
}

/** How the text that lands was chosen among its behaviour's texts. */
function chosenHow(by: string | undefined): string {
  return by === 'agreement'
    ? 'by its votes'
    : by === 'ballots'
      ? "by the judges' ballots"
      : "the judges' favourite (they did not settle)";
}

/** A result on its way in: committed, merged into its parent (or not), its pull request. */
function landingWords({ type, record, str, num }: Fields): string | undefined {
  switch (type) {
    case 'commit-end':
      return `committed ${shortHash(str('commit'))} on ${str('branch') ?? '?'}`;
    case 'merge-end':
      return `merged subtask ${str('child') ?? '?'} (${shortHash(str('commit'))})`;
    case 'merge-conflict': {
      const files = Array.isArray(record['conflicts']) ? record['conflicts'].map(String) : [];
      return `merging subtask ${str('child') ?? '?'} conflicts in ${clipped(files.join(', '), 80)}`;
    }
    case 'merge-checks-failed': {
      const commands = Array.isArray(record['commands']) ? record['commands'].map(String) : [];
      return `merging subtask ${str('child') ?? '?'} broke ${commands.length} check${commands.length === 1 ? '' : 's'} that passed below (${clipped(commands.join(', '), 80)}): repairing it by a voted integration`;
    }
    case 'pull-request':
      return `pull request #${num('number') ?? '?'} ${str('state') ?? ''}: ${str('url') ?? ''}${str('note') === undefined ? '' : ` (${str('note') ?? ''})`}`;
    default:
      return undefined;
  }
}

/** What the run read and ran to judge a result: its prompt's context, checks, tests, probes. */
function checksWords({ type, str, num }: Fields): string | undefined {
  switch (type) {
    case 'context-built': {
      const omitted = num('omitted') ?? 0;
      return `read the repository for a prompt (${num('chars') ?? 0} of ${num('budget') ?? 0} characters${omitted > 0 ? `, ${omitted} paths left out` : ''})`;
    }
    case 'checks-end': {
      const ran = num('ran') ?? 0;
      const failed = num('failed') ?? 0;
      return failed > 0
        ? `checks on its result: ${failed} of ${ran} failed`
        : `checks on its result: ${ran} ran, all passed`;
    }
    case 'checks-unavailable':
      return clipped(str('reason') ?? 'No sandbox works here: no check runs.', 200);
    case 'acceptance-test':
      return clipped(str('reason') ?? `acceptance test ${str('status') ?? '?'}`, 200);
    case 'probe':
      return clipped(str('reason') ?? `probe ${str('status') ?? '?'}`, 200);
    default:
      return undefined;
  }
}

/** The run and the world outside: a question asked and answered, a service's wait begun, over. */
function questionAndWaitWords({ type, record, str }: Fields): string | undefined {
  switch (type) {
    case 'question-asked':
      return questionAskedWords(record['question']);
    case 'question-answered':
      return `answered ${str('questionId') ?? '?'}: ${clipped(str('answer') ?? '', 60)}`;
    case 'wait-start':
      return `waiting for ${str('service') ?? '?'} until ${(str('until') ?? '').slice(11, 19)} UTC: ${clipped(str('reason') ?? '', 80)}`;
    case 'wait-end':
      return `done waiting for ${str('service') ?? '?'}`;
    default:
      return undefined;
  }
}

/** A question asked, read defensively: its id, kind and prompt, each blank when not text. */
function questionAskedWords(q: unknown): string {
  const field = (name: string) => {
    const v =
      typeof q === 'object' && q !== null ? (q as Record<string, unknown>)[name] : undefined;
    return typeof v === 'string' ? v : '';
  };
  return `asks you (${field('id')}, ${field('kind')}): ${clipped(field('prompt'), 100)}`;
}

/** An event this version has no words for (a journal from a newer MAKER): its name, as words. */
function unknownWords(record: Readonly<Record<string, unknown>>): string {
  return typeof record['type'] === 'string' ? record['type'].replace(/-/g, ' ') : '';
}

/** A run's end status as the log says it. */
function statusWords(status: string | undefined): string {
  switch (status) {
    case 'awaiting-human':
      return 'waiting for answers';
    case 'failed-checks':
      return 'stopped before landing: its checks failed or could not run';
    case 'cancelled':
      return 'cancelled (nothing is lost)';
    default:
      return status ?? '?';
  }
}

function voteName(vote: string | undefined): string {
  switch (vote) {
    case 'minimal':
      return 'is it small enough?';
    case 'split':
      return 'how to split';
    case 'patch':
      return 'candidate changes';
    case 'integration':
      return 'merge fix';
    case undefined:
      return 'vote';
    default:
      return vote.endsWith('-ballot') ? `judges (${voteName(vote.slice(0, -7))})` : vote;
  }
}

/** A tree hash, shortened; other keys (a split's JSON, yes/no) say nothing a person reads. */
function shortKey(key: string | undefined, lead = ''): string {
  if (key === 'yes' || key === 'no') return `: ${key}`;
  return key !== undefined && /^[0-9a-f]{40,64}$/.test(key) ? ` (${lead}${key.slice(0, 10)})` : '';
}

function shortHash(hash: string | undefined): string {
  return hash === undefined ? '?' : hash.slice(0, 12);
}

function clipped(text: string, max: number): string {
  const line = text.replace(/\s+/g, ' ').trim();
  return line.length <= max ? line : `${line.slice(0, max - 1)}…`;
}
