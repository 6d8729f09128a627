import type { Boot, NodeDetail, NodesDelta, RunDelta, RunSnapshot, LogEntry } from '../protocol.js';
import { renderDetail, renderPending, statusLine } from './detail.js';
import { h } from './dom.js';
import { checksPill, nextStep, phasePill, runLabel } from './header.js';
import { renderDecided, renderQuestions, type SendAnswer } from './questions.js';
import { Store } from './store.js';
import { toolbarOf } from './toolbar.js';
import { TreeView } from './tree.js';

/** Where the page gets node details: the live server, or the report's inlined data. */
type DetailOf = (id: string) => Promise<NodeDetail | undefined>;

class App {
  readonly store = new Store();
  readonly #boot: Boot;
  readonly #header = h('header', { class: 'top' });
  readonly #questions = h('div', { class: 'questions-host' });
  readonly #treeHost = h('div', { class: 'tree', attrs: { tabindex: '-1' } });
  readonly #detail = h(
    'aside',
    { class: 'detail-host' },
    h('p', { class: 'muted' }, 'Click a node to see its candidates, votes and red flags.'),
  );
  readonly #log = h('ol', { class: 'log' });
  readonly #connection = h('span', { class: 'connection' });
  readonly #tree: TreeView;
  #questionsKey = '';
  #rendered = false;
  #scheduled = false;
  #detailFor: { id: string; version: string } | undefined;
  #detailRequest = 0;

  constructor(boot: Boot, root: HTMLElement) {
    this.#boot = boot;
    this.#tree = new TreeView(this.#treeHost, (id) => this.select(id));
    // A fitted tree is fitted again to a resized window.
    window.addEventListener('resize', () => this.schedule());
    const toolbar = toolbarOf({
      find: (text) => this.find(text),
      expandAll: () => this.expandAll(),
      collapseDone: () => this.collapseDone(),
      zoom: (factor) => this.zoom(factor),
    });
    this.#header.replaceChildren(h('h1', {}, 'MAKER'), this.#connection);
    root.replaceChildren(
      this.#header,
      this.#questions,
      h('main', {}, h('section', { class: 'tree-pane' }, toolbar, this.#treeHost), this.#detail),
      h(
        'footer',
        {},
        h('details', { attrs: { open: '' } }, h('summary', {}, 'Activity'), this.#log),
      ),
    );
  }

  schedule(): void {
    if (this.#scheduled) return;
    this.#scheduled = true;
    requestAnimationFrame(() => {
      this.#scheduled = false;
      this.render();
    });
  }

  render(): void {
    this.#renderHeader();
    this.#renderQuestions();
    this.#tree.render(this.store);
    this.#renderLog();
    void this.#refreshDetail();
    if (!this.#rendered && this.store.nodes.size > 0) {
      this.#rendered = true;
      // When the first picture of the tree is on screen (read by `maker bench view`).
      document.documentElement.dataset['renderedAt'] = String(Math.round(performance.now()));
      document.documentElement.dataset['renderedNodes'] = String(this.store.nodes.size);
    }
  }

  select(id: string): void {
    this.#tree.selected = id;
    this.#detailFor = undefined;
    this.#tree.render(this.store);
    void this.#refreshDetail();
  }

  find(text: string): void {
    const q = text.trim().toLowerCase();
    if (q === '') return;
    const nodes = [...this.store.nodes.values()];
    const hit =
      nodes.find((n) => n.id.toLowerCase() === q) ??
      nodes.find((n) => n.title.toLowerCase().includes(q));
    if (hit === undefined) return;
    this.#tree.reveal(this.store, hit.id);
    this.select(hit.id);
  }

  expandAll(): void {
    this.#tree.collapsed.clear();
    this.#tree.render(this.store);
  }

  /** Folds every finished subtree below the root, leaving the work under way in sight. */
  collapseDone(): void {
    for (const n of this.store.nodes.values())
      if (n.display === 'done' && n.parentId !== null && n.children.length > 0)
        this.#tree.collapsed.add(n.id);
    this.#tree.render(this.store);
  }

  zoom(factor: number): void {
    const now =
      this.#tree.scale ?? Number(this.#treeHost.querySelector('svg')?.dataset['scale'] ?? 1);
    this.#tree.scale = Math.min(2, Math.max(0.2, now * factor));
    this.#tree.render(this.store);
  }

  setConnection(text: string, state: string): void {
    this.#connection.textContent = text;
    this.#connection.className = `connection ${state}`;
  }

  #renderHeader(): void {
    const run = this.store.run;
    if (run === null) return;
    const runs =
      this.#boot.mode === 'live' && this.store.runs.length > 1
        ? h(
            'select',
            {
              attrs: { 'aria-label': 'Run' },
              on: { change: (e) => this.#openRun((e.target as HTMLSelectElement).value) },
            },
            ...this.store.runs.map((r) => {
              const option = h('option', { attrs: { value: r.id } }, runLabel(r));
              option.selected = r.id === run.id;
              return option;
            }),
          )
        : h('code', {}, run.id);
    const result =
      run.result === null
        ? null
        : run.result.landed
          ? `landed on ${run.defaultBranch} as ${run.result.finalCommit.slice(0, 12)}`
          : `left on ${run.result.rootBranch}`;
    const next = nextStep(run, this.store.answering, this.store.pending().length);
    const parts: (HTMLElement | null)[] = [
      h('h1', {}, 'MAKER'),
      runs,
      phasePill(run),
      run.simulated
        ? h(
            'span',
            {
              class: 'pill simulated',
              title: `Simulated with the ${run.worker} worker: the plans and files are placeholders, not real work.`,
            },
            'SIMULATED',
          )
        : null,
      checksPill(run),
      h('span', { class: 'idea', title: run.idea }, run.idea),
      h(
        'span',
        { class: 'counts' },
        `${run.done}/${run.nodes} nodes done · ${run.samples} samples · ${run.flagged} red-flagged · k = ${run.k} · ${run.worker} worker`,
        run.sessions > 0 ? ` · ${run.sessions} sessions` : '',
        result === null ? '' : ` · ${result}`,
      ),
      run.error === null ? null : h('span', { class: 'error' }, run.error),
      next,
      ...run.waits.map((w) =>
        h(
          'span',
          { class: 'wait' },
          `waiting for ${w.service} until ${w.until.slice(11, 19)} UTC: ${w.reason}`,
        ),
      ),
      this.#connection,
    ];
    this.#header.replaceChildren(...parts.filter((p): p is HTMLElement => p !== null));
  }

  #renderQuestions(): void {
    const pending = this.store.pending();
    const decided = this.store.questions.filter((q) => q.answer !== null);
    const key = JSON.stringify([pending, decided, this.store.answering]);
    if (key === this.#questionsKey) return;
    this.#questionsKey = key;
    const send: SendAnswer | null =
      this.#boot.mode === 'live' ? (q, a) => this.#answer(q.id, a) : null;
    const answering =
      this.#boot.mode === 'live'
        ? this.store.answering
        : {
            ok: false,
            driver: null,
            note: 'This is a report: answer with maker answer <questionId> <option>, then maker resume.',
          };
    const section = renderQuestions(pending, answering, send, (id) => {
      this.#tree.reveal(this.store, id);
      this.select(id);
    });
    const done = renderDecided(decided, (id) => {
      this.#tree.reveal(this.store, id);
      this.select(id);
    });
    this.#questions.replaceChildren(...[section, done].filter((e) => e !== null));
  }

  #renderLog(): void {
    const shown = this.#log.childElementCount;
    const entries = this.store.log;
    if (
      shown === entries.length &&
      shown > 0 &&
      this.#log.lastElementChild?.getAttribute('data-seq') === String(entries.at(-1)?.seq)
    )
      return;
    this.#log.replaceChildren(
      ...entries.map((e) =>
        h(
          'li',
          { data: { seq: String(e.seq), type: e.type }, title: e.at },
          h('time', {}, e.at.slice(11, 19)),
          e.nodeId === null ? null : h('span', { class: 'log-node' }, ` node ${e.nodeId}`),
          ` ${e.text === '' ? e.type.replace(/-/g, ' ') : e.text}`,
        ),
      ),
    );
    this.#log.lastElementChild?.scrollIntoView({ block: 'nearest' });
  }

  /**
   * Keeps the panel with the tree: the node's status is redrawn at once from the page's own data
   * (the same frame as its box), and its detail follows from the server. Only the latest request
   * is shown: an older answer that arrives late (its diffs took longer) never replaces a newer one.
   */
  async #refreshDetail(): Promise<void> {
    const id = this.#tree.selected;
    if (id === null) return;
    const node = this.store.nodes.get(id);
    const version = JSON.stringify(node ?? null);
    if (this.#detailFor?.id === id && this.#detailFor.version === version) return;
    this.#detailFor = { id, version };
    const request = ++this.#detailRequest;
    const shown = this.#detail.querySelector(`[data-detail-node="${CSS.escape(id)}"]`);
    if (node !== undefined) {
      if (shown === null) this.#detail.replaceChildren(renderPending(node));
      else shown.querySelector('.status-line')?.replaceWith(statusLine(node));
    }
    const detail = await detailSource(this.#boot, this.store)(id);
    if (this.#tree.selected !== id || request !== this.#detailRequest) return;
    // With the node as the tree drew it when asked: a newer one is drawn with its own request.
    this.#detail.replaceChildren(
      detail === undefined
        ? h('p', { class: 'muted' }, `No detail for ${id}.`)
        : renderDetail(detail, node),
    );
  }

  async #answer(questionId: string, answer: string): Promise<string> {
    if (this.#boot.mode !== 'live' || this.store.run === null)
      throw new Error('Cannot answer here.');
    const response = await fetch('/api/answer', {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-maker-token': this.#boot.token },
      body: JSON.stringify({ runId: this.store.run.id, questionId, answer }),
    });
    const body = (await response.json().catch(() => ({}))) as { note?: string; error?: string };
    if (!response.ok) throw new Error(body.error ?? `The answer was refused (${response.status}).`);
    return body.note ?? 'Recorded.';
  }

  #openRun(runId: string): void {
    if (this.#boot.mode !== 'live') return;
    const url = new URL(location.href);
    url.searchParams.set('run', runId);
    location.assign(url.toString());
  }
}

function detailSource(boot: Boot, store: Store): DetailOf {
  if (boot.mode === 'report') return (id) => Promise.resolve(boot.report.details[id]);
  return async (id) => {
    const params = new URLSearchParams({ token: boot.token, id, run: store.run?.id ?? '' });
    const response = await fetch(`/api/node?${params.toString()}`);
    return response.ok ? ((await response.json()) as NodeDetail) : undefined;
  };
}

/** Follows the run over server-sent events (the browser's EventSource reconnects by itself). */
function follow(app: App, boot: Extract<Boot, { mode: 'live' }>): void {
  const params = new URLSearchParams({ token: boot.token });
  if (boot.runId !== null) params.set('run', boot.runId);
  const events = new EventSource(`/events?${params.toString()}`);
  const on = <T>(type: string, apply: (data: T) => void) =>
    events.addEventListener(type, (event) => {
      apply(JSON.parse((event as MessageEvent<string>).data) as T);
      app.schedule();
    });
  on<RunSnapshot>('snapshot', (s) => app.store.applySnapshot(s));
  on<NodesDelta>('nodes', (d) => app.store.applyNodes(d));
  on<RunDelta>('run', (d) => app.store.applyRun(d));
  on<LogEntry[]>('log', (entries) => app.store.appendLog(entries));
  on<{ dir: string }>('empty', (e) =>
    app.setConnection(`no run in ${e.dir} yet: waiting for one`, 'waiting'),
  );
  events.addEventListener('open', () => app.setConnection('live', 'live'));
  events.addEventListener('error', () => app.setConnection('reconnecting…', 'lost'));
}

function start(): void {
  const root = document.getElementById('app');
  const bootText = document.getElementById('maker-boot')?.textContent;
  if (root === null || bootText === undefined || bootText === null) return;
  const boot = JSON.parse(bootText) as Boot;
  const app = new App(boot, root);
  if (boot.mode === 'report') {
    app.store.applySnapshot(boot.report.snapshot);
    app.store.appendLog(boot.report.log);
    app.setConnection(`report of ${boot.report.generatedAt}`, 'report');
    app.render();
    return;
  }
  app.setConnection('connecting…', 'lost');
  follow(app, boot);
}

start();
