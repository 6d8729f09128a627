import { diffLineKinds } from '../../../core/unified-diff.js';
import { DISPLAY_MEANING, STATUS_COLOURS } from '../../../core/view/display.js';
import type { CandidateDetail, NodeDetail, ViewNode, VoteDetail } from '../protocol.js';
import { externalLink, h } from './dom.js';

/** The selected node in full: its task, and each vote with its candidates side by side. */
export function renderDetail(detail: NodeDetail, node: ViewNode | undefined): HTMLElement {
  const flags = Object.entries(node?.flags ?? {});
  return h(
    'div',
    { class: 'detail', data: { detailNode: detail.id } },
    h('h2', {}, `${detail.id}: ${detail.title}`),
    node === undefined ? null : statusLine(node),
    h('p', { class: 'description' }, detail.description),
    list('Acceptance', detail.acceptance),
    detail.acceptanceTest === null
      ? null
      : h('p', { class: 'acceptance-test' }, `Acceptance test: ${detail.acceptanceTest}`),
    list('Files', detail.files),
    list(
      'Clarifications',
      detail.clarifications.map((c) => `${c.question} → ${c.answer}`),
    ),
    facts([
      ['Branch', detail.branch],
      ['Base', detail.baseCommit],
      ['Commit', detail.commit],
      ['Error', detail.error],
    ]),
    flags.length === 0
      ? null
      : h(
          'p',
          { class: 'flags' },
          'Red flags: ',
          ...flags.map(([rule, count]) => h('span', { class: 'flag' }, `${rule} ×${count}`)),
        ),
    node !== undefined && node.sessions.length > 0
      ? h(
          'p',
          { class: 'sessions' },
          'Sessions: ',
          ...node.sessions.map((s) => h('span', { class: 'session' }, externalLink(s.url, s.id))),
        )
      : null,
    ...detail.votes.map(renderVote),
  );
}

/**
 * The node's status as the tree draws it (same colours), from the page's own data: redrawn with
 * the tree, without waiting for the node's detail from the server.
 */
export function statusLine(node: ViewNode): HTMLElement {
  const pill = h('span', { class: `pill s-${node.display}` }, node.display);
  const [fill, stroke] = STATUS_COLOURS[node.display];
  pill.style.background = fill;
  pill.style.borderColor = stroke;
  return h(
    'p',
    { class: 'status-line', data: { display: node.display } },
    pill,
    ` ${DISPLAY_MEANING[node.display]} · ${node.kind}`,
    node.tally === null ? null : ` · votes ${node.tally}`,
    node.checks === null ? null : ` · ${node.checks}`,
  );
}

/** What the panel shows of a node while its detail is on its way. */
export function renderPending(node: ViewNode): HTMLElement {
  return h(
    'div',
    { class: 'detail', data: { detailNode: node.id, loading: '' } },
    h('h2', {}, `${node.id}: ${node.title}`),
    statusLine(node),
    h('p', { class: 'muted' }, 'Loading its candidates and votes…'),
  );
}

function list(title: string, items: readonly string[]): HTMLElement | null {
  if (items.length === 0) return null;
  return h(
    'div',
    { class: 'list' },
    h('h3', {}, title),
    h('ul', {}, ...items.map((i) => h('li', {}, i))),
  );
}

function facts(rows: readonly (readonly [string, string | null])[]): HTMLElement {
  return h(
    'dl',
    { class: 'facts' },
    ...rows
      .filter(([, value]) => value !== null)
      .flatMap(([name, value]) => [h('dt', {}, name), h('dd', {}, h('code', {}, value ?? ''))]),
  );
}

function renderVote(vote: VoteDetail): HTMLElement {
  return h(
    'section',
    { class: 'vote' },
    h('h3', {}, vote.name, vote.attempt > 0 ? ` (attempt ${vote.attempt + 1})` : ''),
    h('p', { class: 'why' }, vote.why),
    vote.base === null
      ? null
      : h('p', { class: 'muted' }, `Diffs against ${vote.base.slice(0, 12)}.`),
    h('div', { class: 'candidates' }, ...vote.candidates.map(renderCandidate)),
    vote.ballots.length === 0
      ? null
      : h(
          'div',
          { class: 'ballots' },
          h('h4', {}, `Judge ballots (${vote.ballots.length})${ballotTally(vote)}`),
          h(
            'ul',
            {},
            ...vote.ballots.map((b) =>
              h(
                'li',
                { class: `ballot ${b.status}` },
                `Judge #${b.slot}: `,
                b.status === 'valid'
                  ? `for ${cardName(vote, b.forSlot)}`
                  : b.status === 'flagged'
                    ? `red-flagged: ${b.flags.map((f) => `${f.rule}: ${f.message}`).join('; ')}`
                    : 'in progress',
                b.reason === null || b.reason === ''
                  ? null
                  : h('span', { class: 'reason' }, ` — ${b.reason}`),
              ),
            ),
          ),
        ),
  );
}

function renderCandidate(c: CandidateDetail): HTMLElement {
  const slots = c.slots;
  const head = [
    slots.length === 1 ? `sample #${c.slot}` : `samples ${slots.map((s) => `#${s}`).join(', ')}`,
    c.status === 'valid'
      ? `${c.votes} sample vote${c.votes === 1 ? '' : 's'}`
      : c.status === 'flagged'
        ? 'red-flagged'
        : 'in progress',
    c.key === null || !/^[0-9a-f]{7,}$/.test(c.key) ? null : c.key.slice(0, 10),
    c.members.length > 1
      ? `one answer with ${c.members
          .filter((m) => m !== c.slot)
          .map((m) => `#${m}`)
          .join(', ')}`
      : null,
  ]
    .filter((p): p is string => p !== null)
    .join(' · ');
  return h(
    'article',
    {
      class: `candidate ${c.status}${c.winner ? ' winner' : ''}`,
      data: { slot: String(c.slot), samples: String(slots.length) },
    },
    h('header', {}, c.winner ? h('strong', { class: 'won' }, 'WINNER · ') : null, head),
    c.flags.length === 0
      ? null
      : h(
          'ul',
          { class: 'flag-list' },
          ...c.flags.map((f) => h('li', {}, h('b', {}, f.rule), `: ${f.message}`)),
        ),
    c.summary === null ? null : h('p', { class: 'summary' }, c.summary),
    c.session === null ? null : h('p', {}, 'Session ', externalLink(c.session.url, c.session.id)),
    c.value === null ? null : h('pre', { class: 'value' }, c.value),
    c.diff === null ? null : renderDiff(c.diff),
  );
}

/** A unified diff, each line marked as added, removed, hunk header or file header. */
export function renderDiff(diff: string): HTMLElement {
  const pre = h('pre', { class: 'diff' });
  if (diff.trim() === '') {
    pre.append('(no change)');
    return pre;
  }
  const kinds = diffLineKinds(diff);
  diff.split('\n').forEach((line, i) => {
    pre.append(h('span', { class: kinds[i] ?? 'ctx' }, `${line}\n`));
  });
  return pre;
}

/** `: 5 : 5` — the valid ballots per class, most first (apart from the samples' votes). */
function ballotTally(vote: VoteDetail): string {
  const counts = new Map<number, number>();
  for (const b of vote.ballots)
    if (b.status === 'valid' && b.forSlot !== null)
      counts.set(b.forSlot, (counts.get(b.forSlot) ?? 0) + 1);
  const sorted = [...counts.values()].sort((a, b) => b - a);
  if (sorted.length === 0) return '';
  return `: ${sorted[0] ?? 0} : ${sorted[1] ?? 0}`;
}

/** A card as a ballot names it: by its samples (`samples #0, #2`). */
function cardName(vote: VoteDetail, slot: number | null): string {
  const card = vote.candidates.find((c) => c.slot === slot);
  if (card === undefined) return `sample #${slot ?? '?'}`;
  return card.slots.length === 1
    ? `sample #${card.slot}`
    : `samples ${card.slots.map((s) => `#${s}`).join(', ')}`;
}
