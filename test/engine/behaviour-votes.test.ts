import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { makerStateFile } from '../../src/adapters/state/state-file.js';
import { isBehaviourKey } from '../../src/core/voting/behaviour.js';
import type { EngineEvent } from '../../src/engine/events.js';
import { MakerEngine } from '../../src/engine/maker-engine.js';
import { renderNode } from '../../src/core/view/summary.js';
import type { Planner } from '../../src/ports/planner.js';
import type { Worker } from '../../src/ports/worker.js';
import type { Workspace } from '../../src/ports/workspace.js';
import { openWorkspace } from '../../src/app/wiring/wiring.js';
import { baseConfig } from '../helpers/engine.js';
import { useTempDirs } from '../helpers/tmp.js';
import { machineSandbox, workspaceSettings } from '../helpers/settings.js';

const tempDir = useTempDirs();
const sandbox = await machineSandbox();

/** The plan's own check: it only loads the module, so a wrong `add` passes it. */
const WEAK_CHECK = `node -e "import('./add.mjs')"`;
/** Three right answers, each written differently: by text, one vote each. */
const RIGHT = [
  'export function add(a, b) {\n  return a + b;\n}\n',
  'export function add(a, b) {\n  return b + a;\n}\n',
  'export function add(a, b) {\n  const sum = a + b;\n  return sum;\n}\n',
];
/** A plausible wrong answer (a shared misconception), written identically every time. */
const WRONG = 'export function add(a, b) {\n  return a - b;\n}\n';
/**
 * What the worker writes per slot of the candidate vote: by text, the wrong one ties every right
 * text (2 votes each) and, drawn first, leads them.
 */
const BY_SLOT = [WRONG, RIGHT[0], WRONG, RIGHT[1], RIGHT[2], RIGHT[0], RIGHT[1], RIGHT[2]];

const PROBE_PATH = 'probe.mjs';
const PROBE_CMD = `node ${PROBE_PATH}`;
/** Calls add on representative and edge inputs and prints what comes back. */
const GOOD_PROBE = `const { add } = await import('./add.mjs').catch((e) => ({ add: () => e.name }));
for (const [a, b] of [[2, 3], [-1, 1], [0.5, 0.25], [2 ** 53, 1]]) {
  try { console.log(JSON.stringify([a, b]), '->', JSON.stringify(add(a, b))); }
  catch (e) { console.log(JSON.stringify([a, b]), 'threw', e.name, e.message); }
}
`;
/** Calls add only with b = 0, where the wrong answer (a - b) gives what the right one does. */
const WEAK_PROBE = `const { add } = await import('./add.mjs');
for (const a of [2, -1, 7]) console.log(a, '+ 0 ->', add(a, 0));
`;
/** Prints a constant line: it shows nothing of the code. */
const SILENT_PROBE = `console.log('probe ran');\n`;
/** Crashes on its own import on every candidate, before exercising anything. */
const CRASHING_PROBE = `import { addition } from './add.mjs';\nconsole.log(addition(2, 3));\n`;

/**
 * A scripted planner: no acceptance test, the given probe, reviews pass; the judges are fooled by
 * WRONG, or (`judgesRight`) see through it.
 */
function planner(
  probe: string | null,
  asked: number[],
  judges: RunOptions['judges'] = 'fooled',
): Planner {
  const reply = (value: unknown) =>
    Promise.resolve({ text: JSON.stringify(value), finishReason: 'stop' as const });
  let ballots = 0;
  return {
    id: 'scripted',
    isMinimal: () => reply({ minimal: true, reason: '' }),
    proposeSplit: () => reply({ subtasks: [] }),
    // The judges share the misconception: they pick the wrong answer whenever it is an option.
    // Rotating judges see no difference between right texts: each picks the next one in turn.
    castBallot: (_c, _q, options) =>
      reply({
        choice:
          (judges === 'rotating'
            ? options.find((o) => o.content.includes(RIGHT_MARKS[ballots++ % 3] as string))
            : options.find((o) => o.content.includes('a - b') !== (judges === 'right'))
          )?.label ?? 'A',
        reason: '',
      }),
    reviewCandidate: () => reply({ verdict: 'ok', confidence: 0.9, reason: '' }),
    proposeTest: () => reply({ test: null, reason: 'the probe decides here' }),
    proposeProbe: (context, call) => {
      asked.push(call.slot);
      // Written from the task alone: the context it gets holds no candidate.
      expect(JSON.stringify(context)).not.toContain('return a');
      return reply({
        probe: probe === null ? null : { path: PROBE_PATH, content: probe, command: PROBE_CMD },
        reason: 'calls add',
      });
    },
  };
}

/** What tells each right text apart in a ballot option. */
const RIGHT_MARKS = ['return a + b', 'return b + a', 'const sum'];

const workerOf = (bySlot: readonly (string | undefined)[]): Worker => ({
  id: 'scripted',
  run: (_task, slot) =>
    Promise.resolve({
      ok: true,
      edits: [{ path: 'add.mjs', content: bySlot[slot % 1000] ?? (RIGHT[0] as string) }],
      summary: 'Add add()',
    }),
});

/**
 * The workspace, except that the probe's `nth` run (the first is on the base tree) stops the run
 * (as a kill would) while it is in the sandbox.
 */
function killingMidProbe(workspace: Workspace, nth: number, stop: AbortController): Workspace {
  let runs = 0;
  const wrap = <T extends object>(target: T): T =>
    new Proxy(target, {
      get(t, p) {
        const value = Reflect.get(t, p, t) as unknown;
        if (p === 'runCheck' && typeof value === 'function')
          return async (...args: Parameters<Workspace['runCheck']>) => {
            const running = (value as Workspace['runCheck']).apply(t, args);
            if (args[1] === PROBE_CMD && ++runs === nth) stop.abort();
            return running;
          };
        if (p === 'scratch' && typeof value === 'function')
          return async (id: string) =>
            wrap(await (value as (id: string) => Promise<object>).call(t, id));
        return typeof value === 'function' ? (value as () => unknown).bind(t) : value;
      },
    });
  return wrap(workspace);
}

interface RunOptions {
  readonly runChecks?: boolean;
  /** Stops the first engine during the probe's nth run, then resumes with a new one. */
  readonly killAtProbeRun?: number;
  /** The judges share the misconception (`fooled`, the default), see through it, or rotate among right texts. */
  readonly judges?: 'fooled' | 'right' | 'rotating';
  /** What the worker writes per slot (default {@link BY_SLOT}). */
  readonly bySlot?: readonly string[];
}

async function run(probe: string | null, options: RunOptions = {}) {
  const dir = await tempDir();
  const workspace = await openWorkspace(dir, true, workspaceSettings({}));
  const asked: number[] = [];
  try {
    const stop = new AbortController();
    const engineOf = (ws: Workspace) =>
      new MakerEngine({
        workspace: ws,
        roles: {
          planner: planner(probe, asked, options.judges),
          worker: workerOf(options.bySlot ?? BY_SLOT),
        },
        store: makerStateFile(dir),
      });
    const first = engineOf(
      options.killAtProbeRun === undefined
        ? workspace
        : killingMidProbe(workspace, options.killAtProbeRun, stop),
    );
    const runId = await first.create(
      'an ES module add.mjs exporting add(a, b), the sum of a and b',
      { ...baseConfig, runChecks: options.runChecks ?? true, maxDepth: 0, install: '' },
      { check: WEAK_CHECK },
    );
    const events: EngineEvent[] = [];
    const listening = new AbortController();
    const listen = (from: MakerEngine) =>
      (async () => {
        for await (const e of from.events(listening.signal)) events.push(e);
      })().catch(() => undefined);
    const listened = [listen(first)];
    let outcome = await first.run(runId, { signal: stop.signal });
    const interrupted = outcome.status;
    const askedBefore = asked.length;
    if (options.killAtProbeRun !== undefined) {
      const again = engineOf(workspace);
      listened.push(listen(again));
      outcome = await again.run(runId);
    }
    listening.abort();
    await Promise.all(listened);
    const state = await engineOf(workspace).getRun(runId);
    const root = state.nodes[state.rootId];
    const landed =
      root?.commit === undefined ? [] : await workspace.readFiles(root.commit, ['add.mjs']);
    const stateText = await readFile(join(dir, 'maker-state.json'), 'utf8');
    return {
      outcome,
      interrupted,
      askedBefore,
      asked,
      state,
      root,
      events,
      stateText,
      add: landed[0]?.content,
    };
  } finally {
    await workspace.close();
  }
}

/**
 * The run with the good probe and the defaults (fooled judges, {@link BY_SLOT}), made once: two
 * tests read it (nothing in it is changed after it ends, and each reads only what it returns).
 */
let goodRun: ReturnType<typeof run> | undefined;
const withGoodProbe = () => (goodRun ??= run(GOOD_PROBE));

describe.skipIf(sandbox === undefined)('votes on behaviour (issue #36)', () => {
  it('right answers written three ways pool their votes and beat a wrong answer repeated identically', async () => {
    const { outcome, root, state, events, add } = await withGoodProbe();
    expect(outcome.status).toBe('done');
    // By text, the wrong answer leads (2 votes each, drawn first) and the fooled judges pick it.
    // By behaviour, 4 : 2 is narrow, so k goes to 3 and then 4 (the ceiling): 6 : 2.
    expect(RIGHT).toContain(add);
    expect(root?.leaf?.outcome?.settledBy).toBe('agreement');
    expect(root?.probe?.status).toBe('kept');
    const valid = (root?.leaf?.draws ?? []).filter((d) => d.status === 'valid');
    expect(valid.every((d) => isBehaviourKey(d.key))).toBe(true);
    const classes = root?.leaf?.outcome?.classes ?? [];
    expect(classes).toHaveLength(2);
    expect(classes[0]?.slots).toEqual([1, 3, 4, 5, 6, 7]);
    expect(classes[1]?.slots).toEqual([0, 2]);
    expect(root?.leaf?.k).toBe(4);
    // What the probe saw is saved on the draw, and said where the vote is.
    expect(valid[0]?.behaviour?.output).toContain('[2,3] -> -1');
    expect(renderNode(state, 'root')).toContain('pooled by behaviour: 4 texts, 2 behaviours');
    const pooled = events.find((e) => e.type === 'behaviour-pooled');
    expect(pooled).toMatchObject({ texts: 4, behaviours: 2, byText: 0 });
  }, 90_000);

  it('a probe too weak to tell a wrong text from a right one pools them; which lands is voted among the texts', async () => {
    // Slots 0 to 2 are WRONG, RIGHT[0], WRONG: one behaviour under the weak probe, 3 : 0. Its
    // first member is WRONG; by text, WRONG leads RIGHT[0] 2 : 1, not by k, so judges choose.
    const { outcome, root, state, events, add } = await run(WEAK_PROBE, { judges: 'right' });
    expect(outcome.status).toBe('done');
    expect(root?.leaf?.outcome).toMatchObject({ settledBy: 'agreement', votes: 3 });
    expect(root?.leaf?.outcome?.classes?.map((c) => c.slots)).toEqual([[0, 1, 2]]);
    expect(add).toBe(RIGHT[0]);
    expect(root?.leaf?.landed).toEqual({
      key: root?.leaf?.outcome?.key,
      slot: 1,
      texts: 2,
      by: 'ballots',
    });
    // The judges saw the two texts, never the behaviour class as one option.
    expect(root?.leaf?.textBallots?.length).toBeGreaterThanOrEqual(2);
    expect(root?.leaf?.ballots).toEqual([]);
    expect(events.find((e) => e.type === 'vote-text-chosen')).toMatchObject({
      texts: 2,
      slot: 1,
      by: 'ballots',
    });
    expect(renderNode(state, 'root')).toContain(
      "its winning behaviour had 2 texts: sample #1 landed, chosen by the judges' ballots",
    );
    // Judges who share the misconception land it: the probe was too weak, the text vote fair.
    const fooled = await run(WEAK_PROBE);
    expect(fooled.add).toBe(WRONG);
    expect(fooled.root?.leaf?.landed).toMatchObject({ slot: 0, by: 'ballots' });
  }, 120_000);

  it('judges who cannot tell right texts apart spend at most 2k − 1 ballots on which lands', async () => {
    // Three right texts, one behaviour, 3 : 0 by agreement; by text 1 : 1 : 1, so judges choose,
    // and each picks a different text: never ahead by k. The behaviour is decided; its text needs
    // no full ballot cap (10 here), and the judges' favourite lands after 2k − 1 = 3.
    const { outcome, root, events, add } = await run(GOOD_PROBE, {
      judges: 'rotating',
      bySlot: RIGHT,
    });
    expect(outcome.status).toBe('done');
    expect(root?.leaf?.outcome).toMatchObject({ settledBy: 'agreement', votes: 3 });
    expect(root?.leaf?.textBallots).toHaveLength(3);
    expect(root?.leaf?.landed).toMatchObject({ texts: 3, by: 'favourite' });
    expect(RIGHT).toContain(add);
    expect(events.find((e) => e.type === 'vote-text-chosen')).toMatchObject({
      texts: 3,
      by: 'favourite',
    });
  }, 90_000);

  it.each([
    ['prints the same whatever the code', SILENT_PROBE, /printed the same as without the code/],
    ['crashes on its own import', CRASHING_PROBE, /did not run to completion/],
  ])(
    'a useless probe (%s) keys nothing: candidates keep their text keys',
    async (_what, probe, why) => {
      const { root } = await run(probe);
      expect(root?.probe?.status).toBe('kept');
      const valid = (root?.leaf?.draws ?? []).filter((d) => d.status === 'valid');
      expect(valid.length).toBeGreaterThan(0);
      for (const d of valid) {
        expect(isBehaviourKey(d.key)).toBe(false);
        expect(d.behaviour?.text).toBe(d.key);
        expect(d.behaviour?.unused).toMatch(why);
      }
      // Distinct texts stay distinct classes: the wrong answer and each right text apart.
      expect(new Set(valid.map((d) => d.key)).size).toBeGreaterThan(2);
    },
    90_000,
  );

  it('asks for probes where checks run, and for none with --no-checks', async () => {
    const on = await withGoodProbe();
    expect(on.asked.length).toBeGreaterThan(0);
    const off = await run(GOOD_PROBE, { runChecks: false });
    expect(off.asked).toEqual([]);
    expect(off.root?.probe).toBeUndefined();
    expect(off.root?.leaf?.draws.some((d) => d.behaviour !== undefined)).toBe(false);
  }, 90_000);

  it('a kill while a candidate is in the probe resumes to the same keys, without voting the probe again', async () => {
    // The probe's second run is the first candidate's (the first is on the base tree).
    const killed = await run(GOOD_PROBE, { killAtProbeRun: 2 });
    expect(killed.interrupted).toBe('cancelled');
    expect(killed.outcome.status).toBe('done');
    expect(RIGHT).toContain(killed.add);
    expect(killed.asked).toHaveLength(killed.askedBefore);
    const classes = killed.root?.leaf?.outcome?.classes ?? [];
    expect(classes.map((c) => c.slots)).toEqual([
      [1, 3, 4, 5, 6, 7],
      [0, 2],
    ]);
    expect(classes.every((c) => isBehaviourKey(c.key))).toBe(true);
  }, 120_000);
});

describe.skipIf(sandbox === undefined)('a hostile probe (issue #36)', () => {
  let outside: string;
  const secret = `MAKER-CANARY-probe-${process.pid}`;
  beforeAll(async () => {
    // Outside /tmp, which every sandbox replaces with an empty one (a canary there proves nothing).
    const root = join(process.cwd(), 'node_modules', '.cache');
    await mkdir(root, { recursive: true });
    outside = await mkdtemp(join(root, 'maker-probe-'));
    await writeFile(join(outside, 'credentials'), `${secret}\n`);
  });
  afterAll(async () => {
    await rm(outside, { recursive: true, force: true });
  });

  it('is confined and its output redacted, like a check', async () => {
    const token = ['gh', 'p_', 'Zq8'.repeat(12)];
    const hostile = `import { readFileSync, readdirSync } from 'node:fs';
console.log('x'.repeat(200000));
const { add } = await import('./add.mjs');
console.log('add(2, 3) ->', add(2, 3));
console.log('HOME is the sandbox home:', process.env.HOME !== ${JSON.stringify(process.env['HOME'])});
try { console.log(readFileSync(${JSON.stringify(join(outside, 'credentials'))}, 'utf8')); } catch (e) { console.log('credentials', e.code); }
try { console.log(readdirSync(${JSON.stringify(outside)}).join(',')); } catch (e) { console.log('listing', e.code); }
console.log('token', ${JSON.stringify(token)}.join(''));
`;
    const { outcome, root, stateText } = await run(hostile);
    expect(outcome.status).toBe('done');
    const valid = (root?.leaf?.draws ?? []).filter((d) => d.status === 'valid');
    expect(valid.length).toBeGreaterThan(0);
    const outputs = valid.map((d) => d.behaviour?.output ?? '').join('\n');
    // A huge stdout is cut, not a crash; what is kept is a clip.
    for (const d of valid) expect((d.behaviour?.output ?? '').length).toBeLessThan(2000);
    expect(stateText).not.toContain(secret);
    expect(stateText).not.toContain(token.join(''));
    expect(outputs).toContain('HOME is the sandbox home: true');
    expect(outputs).toMatch(/credentials ENOENT/);
    expect(outputs).toMatch(/token \[REDACTED/);
    // It still keys the candidates by what it printed.
    expect(valid.every((d) => isBehaviourKey(d.key))).toBe(true);
  }, 90_000);
});
