import { appendFile, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import {
  STATE_FILE_NAME,
  STATE_LOG_FILE_NAME,
  makerStateFile,
} from '../../../src/adapters/state/state-file.js';
import { applyEdit } from '../../../src/adapters/state/edits.js';
import { StateFileError } from '../../../src/adapters/state/versioned-json-file.js';
import { makeRedactor } from '../../../src/core/errors.js';
import { newNode } from '../../../src/core/tree/nodes.js';
import type { StateFile, TreeNode, VoteRecord } from '../../../src/core/tree/schema.js';
import { runConfig } from '../../../src/app/wiring/wiring.js';
import { useTempDirs } from '../../helpers/tmp.js';

const tempDir = useTempDirs();
const NEVER = { minLogBytes: 1 << 30, snapshotFactor: 1 };

const task = (title: string) => ({
  title,
  description: `Do ${title}.`,
  acceptance: [],
  files: [],
  dependsOn: [],
});

/** A state with one run of a root and `n` children, as the engine builds it. */
function stateWith(state: StateFile, n: number): StateFile {
  const nodes: Record<string, TreeNode> = { root: newNode('root', null, 0, 0, task('root')) };
  for (let i = 0; i < n; i++)
    nodes[String(i)] = newNode(String(i), 'root', 1, i, task(`part ${i}`));
  (nodes['root'] as TreeNode).children = Object.keys(nodes).slice(1);
  state.runs['r1'] = {
    id: 'r1',
    idea: 'an idea',
    createdAt: new Date(0).toISOString(),
    status: 'running',
    baseCommit: 'a'.repeat(40),
    rootId: 'root',
    nodes,
    questions: [],
    eventSeq: 0,
    config: runConfig({ worker: 'sim', hitl: 'auto', defaultBranch: 'main' }),
  };
  return state;
}

const lines = async (dir: string) =>
  (await readFile(join(dir, STATE_LOG_FILE_NAME), 'utf8')).split('\n').filter((l) => l !== '');
const fresh = (dir: string) => makerStateFile(dir).load();
const node = (state: StateFile, id: string) => state.runs['r1']?.nodes[id] as TreeNode;

/** A store folding past 8,000 bytes of log and `factor` times the state, saved with a run of a root alone. */
async function growingRun(factor: number) {
  const dir = await tempDir();
  const store = makerStateFile(dir, undefined, {
    policy: { minLogBytes: 8000, snapshotFactor: factor },
  });
  const state = stateWith(await store.load(), 0);
  await store.save(state);
  const nodes = state.runs['r1']?.nodes as Record<string, TreeNode>;
  return { dir, store, state, root: node(state, 'root'), nodes };
}

describe('the state log', () => {
  it('appends only what changed, and a load replays it to the same state', async () => {
    const dir = await tempDir();
    const store = makerStateFile(dir, undefined, { policy: NEVER });
    const state = stateWith(await store.load(), 50);
    await store.save(state); // the first save after a load: a snapshot
    expect(await lines(dir)).toHaveLength(1); // the header
    const afterSnapshot = store.bytesWritten;

    node(state, '7').status = 'sampling';
    node(state, '7').cost.modelCalls = 2;
    await store.save(state, new Set([node(state, '7')]));
    expect(await lines(dir)).toHaveLength(2);
    expect(JSON.parse((await lines(dir))[1] as string)).toMatchObject({ run: 'r1', id: '7' });
    expect(store.bytesWritten - afterSnapshot).toBeLessThan(1000);

    // Unhinted, a save finds the change wherever it is; new nodes and run fields are always found.
    node(state, '9').title = 'renamed';
    await store.save(state);
    node(state, 'root').children.push('new');
    const run = state.runs['r1'];
    if (run === undefined) throw new Error('no run');
    run.nodes['new'] = newNode('new', 'root', 1, 50, task('new'));
    run.status = 'awaiting-human';
    await store.save(state, new Set([node(state, 'root')]));
    const log = await lines(dir);
    expect(log.length).toBe(4); // header, 7, 9, then one save of root, new and the run head
    expect(
      (JSON.parse(log[3] as string) as { save: Record<string, unknown>[] }).save.map(
        (r) => r['id'] ?? 'head',
      ),
    ).toEqual(['head', 'root', 'new']);
    expect(await fresh(dir)).toEqual(JSON.parse(JSON.stringify(state)));
    // Nothing changed: nothing written.
    const before = store.bytesWritten;
    await store.save(state);
    expect(store.bytesWritten).toBe(before);
  });

  it('writes a changed node as an edit: only the fields and the draws that changed', async () => {
    const dir = await tempDir();
    const store = makerStateFile(dir, undefined, { policy: NEVER });
    const state = stateWith(await store.load(), 2);
    const n = node(state, '1');
    const valid = (slot: number) => ({
      slot,
      status: 'valid' as const,
      key: 'x'.repeat(500),
      flags: [],
    });
    n.minimal = { attempt: 0, draws: [valid(0), valid(1)], ballots: [] };
    n.leaf = { attempt: 0, draws: [], ballots: [] };
    await store.save(state);
    const edits: Record<string, unknown>[] = [];
    const saveAndCheck = async () => {
      const before = (await lines(dir)).length;
      await store.save(state, new Set([n]));
      const log = await lines(dir);
      expect(log).toHaveLength(before + 1);
      const record = JSON.parse(log.at(-1) as string) as Record<string, unknown>;
      edits.push(record);
      expect(await fresh(dir)).toEqual(JSON.parse(JSON.stringify(state)));
      return { record, bytes: (log.at(-1) as string).length };
    };

    n.status = 'sampling';
    n.leaf.draws.push({ slot: 0, status: 'started', flags: [] });
    expect((await saveAndCheck()).record).toEqual({
      run: 'r1',
      id: '1',
      edit: {
        set: { status: 'sampling' },
        votes: { leaf: { draws: { '0': { slot: 0, status: 'started', flags: [] } } } },
      },
    });
    // The minimal vote decided and a draw finished: the vote's own fields, and that draw alone.
    n.leaf.draws[0] = valid(0);
    n.cost.modelCalls = 1;
    n.minimal.outcome = {
      status: 'decided',
      key: 'x',
      votes: 2,
      runnerUpVotes: 0,
      draws: 2,
      flagged: 0,
    };
    const decided = await saveAndCheck();
    expect(Object.keys(decided.record['edit'] as object)).toEqual(['set', 'votes']);
    expect((decided.record['edit'] as { votes: object }).votes).toMatchObject({
      minimal: { fields: { attempt: 0, outcome: { status: 'decided' } } },
      leaf: { draws: { '0': valid(0) } },
    });
    expect(decided.bytes).toBeLessThan(1000); // one 500-byte draw; the minimal vote's two not repeated
    // More draws, one save each: each line holds one draw, however many the vote has.
    for (let slot = 1; slot <= 6; slot++) {
      n.leaf.draws.push(valid(slot));
      expect((await saveAndCheck()).bytes).toBeLessThan(700);
    }
    // A draw in progress changes in place (its session recorded): written again.
    const started = { slot: 7, status: 'started' as const, flags: [] as never[] };
    n.leaf.draws.push(started);
    await saveAndCheck();
    Object.assign(started, { externalId: 'sessions/42' });
    expect((await saveAndCheck()).record['edit']).toEqual({
      votes: { leaf: { draws: { '7': { ...started } } } },
    });
    // A field removed; a vote started over; a new integration: whole where a patch cannot say it.
    n.error = 'the worker failed';
    await saveAndCheck();
    n.error = undefined;
    expect((await saveAndCheck()).record['edit']).toEqual({ unset: ['error'] });
    n.leaf = { attempt: 1, draws: [valid(0)], ballots: [] };
    expect((await saveAndCheck()).record['edit']).toEqual({
      votes: { leaf: { whole: JSON.parse(JSON.stringify(n.leaf)) as unknown } },
    });
    n.integrations = { '1': { attempt: 0, draws: [], ballots: [], conflicts: ['a.ts'] } };
    expect((await saveAndCheck()).record['edit']).toHaveProperty('votes.integrations.whole');
    // A run head: only what changed, and a field removed.
    const run = state.runs['r1'] as StateFile['runs'][string];
    run.eventSeq = 5;
    run.error = 'stopped';
    await store.save(state);
    expect(JSON.parse((await lines(dir)).at(-1) as string)).toEqual({
      run: 'r1',
      headEdit: { set: { eventSeq: 5, error: 'stopped' } },
    });
    run.error = undefined;
    await store.save(state);
    expect(JSON.parse((await lines(dir)).at(-1) as string)).toEqual({
      run: 'r1',
      headEdit: { unset: ['error'] },
    });
    expect(await fresh(dir)).toEqual(JSON.parse(JSON.stringify(state)));

    // A vote removed: only a whole node can say that.
    n.leaf = undefined;
    await store.save(state, new Set([n]));
    expect(JSON.parse((await lines(dir)).at(-1) as string)).toHaveProperty('node');
    expect(await fresh(dir)).toEqual(JSON.parse(JSON.stringify(state)));
  });

  it('loads logs of whole nodes and of parts (older), and refuses an edit it cannot apply', async () => {
    const dir = await tempDir();
    const store = makerStateFile(dir, undefined, { policy: NEVER });
    const state = stateWith(await store.load(), 2);
    await store.save(state);
    const [header] = await lines(dir);
    const old = {
      ...(JSON.parse(JSON.stringify(node(state, '1'))) as TreeNode),
      title: 'from an older log',
      leaf: { attempt: 0, draws: [], ballots: [] },
    };
    const part = { ...old, title: 'a part', status: 'sampling' } as Partial<TreeNode>;
    delete part.leaf;
    const write = (...records: object[]) =>
      writeFile(
        join(dir, STATE_LOG_FILE_NAME),
        [header, ...records.map((r) => JSON.stringify(r)), ''].join('\n'),
      );
    await write({ run: 'r1', id: '1', node: old });
    expect(node(await fresh(dir), '1')).toEqual(JSON.parse(JSON.stringify(old)));
    await write({ run: 'r1', id: '1', node: old }, { run: 'r1', id: '1', part });
    expect(node(await fresh(dir), '1')).toMatchObject({
      title: 'a part',
      status: 'sampling',
      leaf: old.leaf,
    });

    // A `__proto__` field in a line (parsed as an own key) never becomes a prototype.
    const target: Record<string, unknown> = { title: 'before' };
    const edit = JSON.parse('{"set":{"__proto__":{"polluted":true},"title":"t"}}') as object;
    expect(applyEdit(target, edit as Record<string, unknown>)).toBeUndefined();
    expect(target).toEqual({ title: 't' });
    expect(Object.getPrototypeOf(target)).toBe(Object.prototype);

    const refused = async (...records: object[]) => {
      await write(...records, {});
      const error = await fresh(dir).catch((e: unknown) => e);
      expect(error).toBeInstanceOf(StateFileError);
      expect((error as StateFileError).problem).toBe('corrupt');
      expect((error as Error).message).toMatch(/Move the log aside/);
    };
    // A part or an edit for a node the log never wrote whole; a patch for a vote the node lacks;
    // a slot no vote has; a run never written.
    await refused({ run: 'r1', id: 'ghost', part: { id: 'ghost' } });
    await refused({ run: 'r1', id: 'ghost', edit: { set: { title: 'x' } } });
    await refused({ run: 'r1', id: '1', edit: { votes: { split: { draws: { '0': null } } } } });
    await refused(
      { run: 'r1', id: '1', node: old },
      { run: 'r1', id: '1', edit: { votes: { leaf: { draws: { '-1': null } } } } },
    );
    await refused({ run: 'r9', headEdit: { set: { status: 'done' } } });
  });

  it('ignores a torn last line, refuses a damaged earlier one', async () => {
    const dir = await tempDir();
    const store = makerStateFile(dir, undefined, { policy: NEVER });
    const state = stateWith(await store.load(), 3);
    await store.save(state);
    node(state, '1').title = 'kept';
    await store.save(state, new Set([node(state, '1')]));
    await appendFile(join(dir, STATE_LOG_FILE_NAME), '{"run":"r1","id":"2","node":{"id":"2","ti');
    expect(node(await fresh(dir), '1').title).toBe('kept');
    expect(node(await fresh(dir), '2').title).toBe('part 2');

    const text = await readFile(join(dir, STATE_LOG_FILE_NAME), 'utf8');
    const [header, ...rest] = text.split('\n');
    await writeFile(join(dir, STATE_LOG_FILE_NAME), [header, 'garbage', ...rest].join('\n'));
    const error = await fresh(dir).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(StateFileError);
    expect((error as StateFileError).problem).toBe('corrupt');
  });

  it('loses a whole save torn by a crash, never a part of it (a parent without its new child)', async () => {
    const dir = await tempDir();
    const store = makerStateFile(dir, undefined, { policy: NEVER });
    const state = stateWith(await store.load(), 2);
    await store.save(state);
    const run = state.runs['r1'];
    if (run === undefined) throw new Error('no run');
    const children = [...node(state, 'root').children];
    run.nodes['new'] = newNode('new', 'root', 1, 2, task('new'));
    node(state, 'root').children.push('new');
    node(state, '0').title = 'renamed';
    await store.save(state, new Set([node(state, 'root'), node(state, '0')]));
    const whole = await readFile(join(dir, STATE_LOG_FILE_NAME), 'utf8');
    expect(await fresh(dir)).toEqual(JSON.parse(JSON.stringify(state)));
    // Torn anywhere inside the save's line (after any of its records): nothing of it is applied.
    const saveAt = whole.indexOf('\n') + 1;
    for (const cut of [saveAt + 40, whole.indexOf('},{', saveAt) + 2, whole.length - 3]) {
      await writeFile(join(dir, STATE_LOG_FILE_NAME), whole.slice(0, cut));
      const loaded = await fresh(dir);
      expect(Object.keys(loaded.runs['r1']?.nodes ?? {}).sort()).toEqual(['0', '1', 'root']);
      expect(node(loaded, 'root').children).toEqual(children);
      expect(node(loaded, '0').title).toBe('part 0');
    }
  });

  it('ignores a log older than the snapshot and refuses one newer', async () => {
    const dir = await tempDir();
    const store = makerStateFile(dir, undefined, { policy: NEVER });
    const state = stateWith(await store.load(), 3);
    await store.save(state);
    node(state, '1').title = 'in the log';
    await store.save(state, new Set([node(state, '1')]));
    const oldLog = await readFile(join(dir, STATE_LOG_FILE_NAME), 'utf8');
    const oldSnapshot = await readFile(join(dir, STATE_FILE_NAME), 'utf8');
    await store.compact(state); // generation 2; a crash before its new log leaves the old one
    await writeFile(join(dir, STATE_LOG_FILE_NAME), oldLog);
    node(state, '1').title = 'only in memory';
    expect(node(await fresh(dir), '1').title).toBe('in the log');

    // An older snapshot (a restored backup) under a newer log: refused, naming what to do.
    const again = makerStateFile(dir, undefined, { policy: NEVER });
    await again.save(await again.load()); // generation 3, and its log
    await writeFile(join(dir, STATE_FILE_NAME), oldSnapshot);
    const error = await fresh(dir).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(StateFileError);
    expect((error as StateFileError).problem).toBe('newer');
    expect((error as Error).message).toMatch(/Move the log aside/);
  });

  it('reads a state another process compacts between its two reads, not taking it for a backup', async () => {
    // Proves: a reader beside a running run (`maker status`, the live view) that reads the
    // snapshot just before the run compacts, and its new log just after, reads again instead of
    // refusing the state as an older snapshot. Failed at main (seen once in a full suite run).
    const dir = await tempDir();
    const writer = makerStateFile(dir, undefined, { policy: NEVER });
    const state = stateWith(await writer.load(), 3);
    await writer.save(state);
    let compactions = 0;
    const reader = makerStateFile(dir, undefined, {
      betweenReads: async () => {
        if (compactions > 0) return;
        compactions++;
        node(state, '1').title = 'compacted meanwhile';
        await writer.compact(state);
      },
    });
    expect(node(await reader.load(), '1').title).toBe('compacted meanwhile');
    expect(compactions).toBe(1);
  });

  it('refuses a log with no snapshot beside it, and leaves it untouched', async () => {
    // A garbage log, and a real one whose snapshot was moved aside: neither is silently replaced.
    const garbage = await tempDir();
    await writeFile(join(garbage, STATE_LOG_FILE_NAME), 'not a log\n');
    const moved = await tempDir();
    const store = makerStateFile(moved, undefined, { policy: NEVER });
    const state = stateWith(await store.load(), 3);
    await store.save(state);
    node(state, '1').title = 'only in the log';
    await store.save(state, new Set([node(state, '1')]));
    await rm(join(moved, STATE_FILE_NAME));
    for (const dir of [garbage, moved]) {
      const log = await readFile(join(dir, STATE_LOG_FILE_NAME), 'utf8');
      const again = makerStateFile(dir, undefined, { policy: NEVER });
      const error = await again.load().catch((e: unknown) => e);
      expect(error).toBeInstanceOf(StateFileError);
      expect((error as Error).message).toContain(STATE_LOG_FILE_NAME);
      expect(await readFile(join(dir, STATE_LOG_FILE_NAME), 'utf8')).toBe(log);
    }
  });

  it('folds the log into the snapshot past the size bound and on a clean stop', async () => {
    const dir = await tempDir();
    const store = makerStateFile(dir, undefined, {
      policy: { minLogBytes: 4000, snapshotFactor: 1 },
    });
    const state = stateWith(await store.load(), 20);
    await store.save(state);
    let snapshots = 0;
    for (let i = 0; i < 100; i++) {
      node(state, String(i % 20)).description = `Step ${i}: ${'x'.repeat(200)}`;
      await store.save(state, new Set([node(state, String(i % 20))]));
      if ((await lines(dir)).length === 1) snapshots += 1;
    }
    expect(snapshots).toBeGreaterThan(0);
    expect(await fresh(dir)).toEqual(JSON.parse(JSON.stringify(state)));

    node(state, '3').title = 'last change';
    await store.save(state, new Set([node(state, '3')]));
    await store.compact(state);
    expect(await lines(dir)).toHaveLength(1);
    const whole = JSON.parse(await readFile(join(dir, STATE_FILE_NAME), 'utf8')) as Record<
      string,
      unknown
    >;
    delete whole['$generation'];
    expect(whole).toEqual(JSON.parse(JSON.stringify(state)));
  });

  it('writes a bounded number of bytes per record however long the log and large the state grow', async () => {
    const factor = 2;
    const { dir, store, state, root, nodes } = await growingRun(factor);
    // The run grows: each step adds a leaf under a group of at most 8 and changes it three times,
    // saving it with its group, as an engine would.
    const perRecord: number[] = [];
    const steps = 800;
    let records = 0;
    let before = store.bytesWritten;
    for (let i = 0; i < steps; i++) {
      const groupId = `g${Math.floor(i / 8)}`;
      if (nodes[groupId] === undefined) {
        nodes[groupId] = newNode(groupId, 'root', 1, root.children.length, task(groupId));
        root.children.push(groupId);
        await store.save(state, new Set([root, nodes[groupId]]));
      }
      const group = nodes[groupId];
      const id = String(i);
      nodes[id] = newNode(id, groupId, 2, group.children.length, task(`part ${i}`));
      group.children.push(id);
      for (let change = 0; change < 3; change++) {
        nodes[id].cost.tokens += 1;
        await store.save(state, new Set([nodes[id], group]));
        records += 1;
      }
      if ((i + 1) % 200 === 0) {
        perRecord.push((store.bytesWritten - before) / records);
        before = store.bytesWritten;
        records = 0;
      }
    }
    // The state (and its snapshot) grew fourfold from the first quarter to the last; the bytes a
    // record costs, snapshots included, did not grow with it.
    const [first, , , last] = perRecord as [number, number, number, number];
    expect(last).toBeLessThan(first * 1.5);
    expect(await fresh(dir)).toEqual(JSON.parse(JSON.stringify(state)));
  });

  it('writes snapshots of at most 1/factor of the log, however fast the state grows', async () => {
    // Leaves whose votes gain a draw every few saves: much of the log's bytes is the state's growth.
    // Folded against the last snapshot's size (before), each snapshot outgrew the log before it:
    // the snapshots wrote 0.65 of the log's bytes here; now 0.25.
    const factor = 2;
    const { dir, store, state, root, nodes } = await growingRun(factor);
    const logPath = join(dir, STATE_LOG_FILE_NAME);
    let logBytes = 0;
    let snapshotBytes = 0;
    let snapshots = 0;
    const save = async (changed: TreeNode[]) => {
      const written = store.bytesWritten;
      const logBefore = (await stat(logPath)).size;
      await store.save(state, new Set(changed));
      const appended = (await stat(logPath)).size - logBefore;
      if (appended > 0) logBytes += appended;
      else {
        snapshots += 1;
        snapshotBytes += store.bytesWritten - written;
      }
    };
    for (let i = 0; i < 300; i++) {
      const id = String(i);
      const n = (nodes[id] = newNode(id, 'root', 1, i, task(`part ${i}`)));
      root.children.push(id);
      const leaf: VoteRecord = { attempt: 0, draws: [], ballots: [] };
      n.leaf = leaf;
      await save([root, n]);
      for (let slot = 0; slot < 4; slot++) {
        const draw = { slot, status: 'valid' as const, key: `k${slot}`, value: 'v'.repeat(100) };
        leaf.draws.push({ ...draw, flags: [] });
        for (let call = 0; call < 5; call++) {
          n.cost.tokens += 1;
          await save([n]);
        }
      }
    }
    expect(snapshots).toBeGreaterThan(3);
    expect(snapshotBytes).toBeLessThanOrEqual(logBytes / factor);
    expect(await fresh(dir)).toEqual(JSON.parse(JSON.stringify(state)));
  });

  it('writes no configured secret to the log', async () => {
    const dir = await tempDir();
    const secret = 'sk-test-0123456789abcdef';
    const store = makerStateFile(dir, makeRedactor([secret]), { policy: NEVER });
    const state = stateWith(await store.load(), 2);
    await store.save(state);
    node(state, '1').error = `the service said: bad key ${secret}`;
    await store.save(state, new Set([node(state, '1')]));
    // In each part a save serialises on its own: the node's other fields, a vote, a draw in a patch.
    node(state, '1').title = `about ${secret}`;
    node(state, '1').leaf = {
      attempt: 0,
      draws: [{ slot: 0, status: 'valid', key: 'k', flags: [], summary: secret }],
      ballots: [],
    };
    await store.save(state, new Set([node(state, '1')]));
    (node(state, '1').leaf as VoteRecord).draws.push({
      slot: 1,
      status: 'started',
      flags: [],
      externalId: `sessions/${secret}`,
    });
    await store.save(state, new Set([node(state, '1')]));
    const log = await readFile(join(dir, STATE_LOG_FILE_NAME), 'utf8');
    expect(log.match(/\[redacted\]/g)).toHaveLength(4); // error, title, summary, externalId
    expect(log).not.toContain(secret);
  });
});
