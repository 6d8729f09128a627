import { appendFile, readFile, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import {
  STATE_FILE_NAME,
  STATE_LOG_FILE_NAME,
  makerStateFile,
} from '../../../src/adapters/state/state-file.js';
import { StateFileError } from '../../../src/adapters/state/versioned-json-file.js';
import { makeRedactor } from '../../../src/core/errors.js';
import { newNode } from '../../../src/core/tree/nodes.js';
import type { StateFile, TreeNode } from '../../../src/core/tree/schema.js';
import { runConfig } from '../../../src/surfaces/wiring.js';
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

  it('writes a changed node as its fields and the votes that changed, and loads older whole-node logs', async () => {
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
    n.status = 'sampling';
    n.leaf.draws.push({ slot: 0, status: 'started', flags: [] });
    await store.save(state, new Set([n]));
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
    await store.save(state, new Set([n]));
    const log = (await lines(dir)).slice(1).map((l) => JSON.parse(l) as Record<string, unknown>);
    expect(
      log.map((r) =>
        Object.keys(r['part'] as object).filter((k) => k === 'minimal' || k === 'leaf'),
      ),
    ).toEqual([['leaf'], ['minimal', 'leaf']]);
    expect(JSON.stringify(log[0]).length).toBeLessThan(1000); // the minimal vote (1 KB) not repeated
    expect(await fresh(dir)).toEqual(JSON.parse(JSON.stringify(state)));

    // A vote removed: only a whole node can say that.
    n.leaf = undefined;
    await store.save(state, new Set([n]));
    expect(JSON.parse((await lines(dir)).at(-1) as string)).toHaveProperty('node');
    expect(await fresh(dir)).toEqual(JSON.parse(JSON.stringify(state)));

    // A log written before `part` records (whole nodes only) loads as before.
    const old = { ...JSON.parse(JSON.stringify(n)), title: 'from an older log' } as TreeNode;
    await writeFile(
      join(dir, STATE_LOG_FILE_NAME),
      [(await lines(dir))[0], JSON.stringify({ run: 'r1', id: '1', node: old }), ''].join('\n'),
    );
    expect(node(await fresh(dir), '1')).toEqual(JSON.parse(JSON.stringify(old)));

    // A part for a node the log never wrote whole is refused.
    await appendFile(
      join(dir, STATE_LOG_FILE_NAME),
      `${JSON.stringify({ run: 'r1', id: 'ghost', part: { id: 'ghost' } })}\n{}\n`,
    );
    const error = await fresh(dir).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(StateFileError);
    expect((error as StateFileError).problem).toBe('corrupt');
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
    for (let i = 0; i < 40; i++) {
      node(state, String(i % 20)).cost.tokens += 1;
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
    const dir = await tempDir();
    const factor = 2;
    const store = makerStateFile(dir, undefined, {
      policy: { minLogBytes: 8000, snapshotFactor: factor },
    });
    const state = stateWith(await store.load(), 0);
    await store.save(state);
    const root = node(state, 'root');
    const nodes = state.runs['r1']?.nodes as Record<string, TreeNode>;
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

  it('writes no configured secret to the log', async () => {
    const dir = await tempDir();
    const secret = 'sk-test-0123456789abcdef';
    const store = makerStateFile(dir, makeRedactor([secret]), { policy: NEVER });
    const state = stateWith(await store.load(), 2);
    await store.save(state);
    node(state, '1').error = `the service said: bad key ${secret}`;
    await store.save(state, new Set([node(state, '1')]));
    // In each part a save serialises on its own: the node's other fields, and a vote.
    node(state, '1').title = `about ${secret}`;
    node(state, '1').leaf = {
      attempt: 0,
      draws: [{ slot: 0, status: 'valid', key: 'k', flags: [], summary: secret }],
      ballots: [],
    };
    await store.save(state, new Set([node(state, '1')]));
    const log = await readFile(join(dir, STATE_LOG_FILE_NAME), 'utf8');
    expect(log.match(/\[redacted\]/g)).toHaveLength(4); // error (twice: the second line repeats it), title, summary
    expect(log).not.toContain(secret);
  });
});
