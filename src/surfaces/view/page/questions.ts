import type { Answering, ViewQuestion } from '../protocol.js';
import { h } from './dom.js';

/** Sends an answer; resolves with what to tell the person, or throws with the server's reason. */
export type SendAnswer = (question: ViewQuestion, answer: string) => Promise<string>;

/**
 * The pending questions, first on the page. Each option is a button; a clarify question also takes
 * the person's own words. Where this view cannot answer (`answering.ok` false), it says why.
 */
export function renderQuestions(
  pending: readonly ViewQuestion[],
  answering: Answering,
  send: SendAnswer | null,
  onShowNode: (id: string) => void,
): HTMLElement | null {
  if (pending.length === 0) return null;
  const canAnswer = send !== null && answering.ok;
  return h(
    'section',
    { class: 'questions', attrs: { 'aria-live': 'polite' } },
    h('h2', {}, `${pending.length} question${pending.length === 1 ? '' : 's'} waiting for you`),
    answering.note === ''
      ? null
      : h('p', { class: `answering ${canAnswer ? 'ok' : 'no'}` }, answering.note),
    ...pending.map((q) => renderQuestion(q, canAnswer ? send : null, onShowNode)),
  );
}

function renderQuestion(
  q: ViewQuestion,
  send: SendAnswer | null,
  onShowNode: (id: string) => void,
): HTMLElement {
  const status = h('p', { class: 'answer-status', attrs: { role: 'status' } });
  const answer = answerer(q, send, status);
  return h(
    'article',
    { class: 'question', data: { question: q.id } },
    questionHeader(q, onShowNode),
    h('p', { class: 'prompt' }, q.prompt),
    // The choices first: a long context (a veto's diffstat) scrolls below them, in its own box.
    h('ol', { class: 'options' }, ...q.options.map((o, i) => optionItem(o, i, answer))),
    q.allowText ? freeTextForm(answer) : null,
    status,
    q.context === null
      ? null
      : h('details', {}, h('summary', {}, 'context'), h('pre', {}, q.context)),
  );
}

/** How a question's controls answer it: all of them disabled while an answer is on its way. */
interface Answerer {
  /** False where this view cannot answer: the controls are shown, disabled. */
  readonly canSend: boolean;
  /** The buttons that send, disabled together while an answer is on its way. */
  readonly buttons: HTMLButtonElement[];
  readonly submit: (answer: string) => void;
}

/** Sends an answer to `q`; `status` says it is on its way, then the server's note or reason. */
function answerer(q: ViewQuestion, send: SendAnswer | null, status: HTMLElement): Answerer {
  const buttons: HTMLButtonElement[] = [];
  const submit = (answer: string) => {
    if (send === null) return;
    for (const b of buttons) b.disabled = true;
    status.textContent = 'Sending…';
    status.className = 'answer-status';
    send(q, answer).then(
      (note) => {
        status.textContent = note;
        status.className = 'answer-status ok';
      },
      (error: unknown) => {
        status.textContent = error instanceof Error ? error.message : String(error);
        status.className = 'answer-status error';
        for (const b of buttons) b.disabled = false;
      },
    );
  };
  return { canSend: send !== null, buttons, submit };
}

/** The question's kind, node and id. */
function questionHeader(q: ViewQuestion, onShowNode: (id: string) => void): HTMLElement {
  return h(
    'header',
    {},
    h('span', { class: `kind ${q.kind}` }, q.kind),
    ' ',
    nodeLink(q.nodeId, onShowNode),
    h('code', { class: 'qid' }, q.id),
  );
}

/** One option: a numbered button that answers with it, and its details folded below. */
function optionItem(o: ViewQuestion['options'][number], i: number, answer: Answerer): HTMLElement {
  const button = h(
    'button',
    {
      class: 'option',
      data: { option: o.id },
      attrs: { type: 'button' },
      on: { click: () => answer.submit(o.id) },
    },
    `${i + 1}. ${o.label}`,
  );
  button.disabled = !answer.canSend;
  answer.buttons.push(button);
  return h(
    'li',
    {},
    button,
    o.detail === undefined
      ? null
      : h('details', {}, h('summary', {}, 'details'), h('pre', {}, o.detail)),
  );
}

/** A clarify question's box for the person's own words, sent when not blank. */
function freeTextForm(answer: Answerer): HTMLElement {
  const input = h('input', {
    attrs: { type: 'text', placeholder: 'or your own words', 'aria-label': 'Your answer' },
  });
  input.disabled = !answer.canSend;
  const go = h('button', { attrs: { type: 'submit' } }, 'Answer');
  go.disabled = !answer.canSend;
  answer.buttons.push(go);
  return h(
    'form',
    {
      class: 'free-text',
      on: {
        submit: (event) => {
          event.preventDefault();
          if (input.value.trim() !== '') answer.submit(input.value);
        },
      },
    },
    input,
    go,
  );
}

/**
 * The questions already answered, folded under the pending ones: what was asked, and what was
 * decided (by a person, or by the run's `--hitl auto` policy).
 */
export function renderDecided(
  decided: readonly ViewQuestion[],
  onShowNode: (id: string) => void,
): HTMLElement | null {
  if (decided.length === 0) return null;
  return h(
    'details',
    { class: 'decided' },
    h('summary', {}, `Decided (${decided.length})`),
    h(
      'ol',
      {},
      ...decided.map((q) => {
        const option = q.options.find((o) => o.id === q.answer?.optionId);
        const answer = option?.label ?? q.answer?.text ?? q.answer?.optionId ?? '';
        return h(
          'li',
          { data: { decided: q.id } },
          h('span', { class: `kind ${q.kind}` }, q.kind),
          ' ',
          nodeLink(q.nodeId, onShowNode),
          ' ',
          h('span', { class: 'prompt' }, q.prompt),
          ' → ',
          h('strong', { class: 'answer' }, answer),
        );
      }),
    ),
  );
}

/** A button that shows the question's node, or nothing for a run-wide question. */
function nodeLink(nodeId: string | null, onShowNode: (id: string) => void): HTMLElement | null {
  return nodeId === null
    ? null
    : h(
        'button',
        { class: 'link', attrs: { type: 'button' }, on: { click: () => onShowNode(nodeId) } },
        `node ${nodeId}`,
      );
}
