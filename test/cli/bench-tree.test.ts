import { describe, expect, it } from 'vitest';
import { main } from '../../src/surfaces/cli/main.js';
import type { CliIo } from '../../src/surfaces/cli/io.js';
import { MAX_BENCH_LEAVES, TreeShape } from '../../src/surfaces/bench/tree-shape.js';

async function cli(args: string[]) {
  const out: string[] = [];
  const err: string[] = [];
  const io: CliIo = {
    stdout: (t) => void out.push(t),
    stderr: (t) => void err.push(t),
    stderrIsTty: false,
    stdinIsTty: false,
    cwd: process.cwd(),
    env: {},
  };
  const code = await main(args, io);
  return { code, stdout: out.join(''), stderr: err.join('') };
}

/** Walks the shape from the root: leaves, nodes, deepest level, and the widest and narrowest split. */
function walk(shape: TreeShape) {
  let leaves = 0;
  let wideLeaves = 0;
  let nodes = 0;
  let deepest = 0;
  let widest = 0;
  let narrowest = Infinity;
  const visit = (id: string, depth: number): void => {
    nodes += 1;
    deepest = Math.max(deepest, depth);
    const children = shape.children(id);
    if (children === 0) {
      const [lo, hi] = shape.range(id);
      if (hi - lo !== 1) wideLeaves += 1;
      leaves += 1;
      return;
    }
    widest = Math.max(widest, children);
    narrowest = Math.min(narrowest, children);
    for (let i = 0; i < children; i++) visit(id === 'root' ? String(i) : `${id}-${i}`, depth + 1);
  };
  visit('root', 0);
  return { leaves, wideLeaves, nodes, deepest, widest, narrowest };
}

describe('the benchmark tree', () => {
  it('has exactly the leaves asked for, 2 to 8 children a split, at every size up to the limit', () => {
    const sizes = [
      ...Array.from({ length: 600 }, (_, i) => i + 1),
      1000,
      4095,
      4096,
      4097,
      5000,
      9999,
      MAX_BENCH_LEAVES,
    ];
    for (const leaves of sizes) {
      const shape = new TreeShape(leaves);
      const seen = walk(shape);
      expect({ asked: leaves, ...seen }).toMatchObject({
        asked: leaves,
        leaves,
        wideLeaves: 0,
        nodes: shape.nodes(),
      });
      expect(seen.deepest).toBe(shape.depth);
      if (leaves > 1) {
        expect(seen.widest).toBeLessThanOrEqual(8);
        expect(seen.narrowest).toBeGreaterThanOrEqual(2);
      }
    }
  });

  it.each([1, 9, 65, 513])(
    '`maker bench tree --leaves %i` runs and reports exactly that many leaves',
    async (leaves) => {
      const { code, stdout } = await cli([
        'bench',
        'tree',
        '--leaves',
        String(leaves),
        '--latency-ms',
        '0',
        '--state-nodes',
        '50',
        '--json',
      ]);
      const report = JSON.parse(stdout) as {
        leavesRequested: number;
        leaves: number;
        status: string;
        nodes: number;
        saves: { count: number; bytes: number; bytesPerNode: number; cpuShare: number };
      };
      expect(report).toMatchObject({ leavesRequested: leaves, leaves, status: 'done' });
      expect(code).toBe(0);
      expect(report.nodes).toBe(new TreeShape(leaves).nodes());
      expect(report.saves.count).toBeGreaterThan(0);
      expect(report.saves.bytesPerNode).toBe(Math.round(report.saves.bytes / report.nodes));
      expect(report.saves.cpuShare).toBeGreaterThan(0);
    },
  );

  it('`--workspace git` counts the git processes the run starts: a handful per node', async () => {
    const { code, stdout } = await cli([
      'bench',
      'tree',
      '--leaves',
      '20',
      '--latency-ms',
      '0',
      '--state-nodes',
      '50',
      '--workspace',
      'git',
      '--json',
    ]);
    expect(code).toBe(0);
    const report = JSON.parse(stdout) as {
      nodes: number;
      gitProcesses: { total: number; perNode: number; byCommand: Record<string, number> };
    };
    const { total, perNode, byCommand } = report.gitProcesses;
    expect(Object.values(byCommand).reduce((a, b) => a + b, 0)).toBe(total);
    expect(perNode).toBe(Math.round((total / report.nodes) * 100) / 100);
    // One commit per leaf and per merge, one merge-tree per merge; everything else long-lived.
    expect(perNode).toBeLessThanOrEqual(5);
    expect(byCommand['commit-tree']).toBeGreaterThan(0);
  });

  it("`--state-nodes 1` completes, and at latency 0 the ideal is the run's own CPU time", async () => {
    const { code, stdout, stderr } = await cli([
      'bench',
      'tree',
      '--leaves',
      '9',
      '--latency-ms',
      '0',
      '--state-nodes',
      '1',
      '--json',
    ]);
    expect(code, stderr).toBe(0);
    const report = JSON.parse(stdout) as {
      cpuMs: number;
      idealMs: number;
      idealBound: string;
      ratio: number | null;
      nodes: number;
      peakRssMb: number;
      peakRssPerNodeKb: number;
      stateSave: { nodes: number; medianMs: number };
    };
    // The process's high-water mark: at least Node's own few tens of MB.
    expect(report.peakRssMb).toBeGreaterThan(20);
    expect((report.peakRssPerNodeKb * report.nodes) / (report.peakRssMb * 1024)).toBeCloseTo(1, 2);
    expect(report.stateSave.nodes).toBe(1);
    expect(report.stateSave.medianMs).toBeGreaterThanOrEqual(0);
    expect(report).toMatchObject({ idealBound: 'cpu', idealMs: report.cpuMs });
    expect(report.idealMs).toBeGreaterThan(0);
    expect(report.ratio).toBeGreaterThan(0);
  });

  it('refuses more than 10,000 leaves with a usage error', async () => {
    const { code, stderr } = await cli(['bench', 'tree', '--leaves', '10001', '--json']);
    expect(code).toBe(2);
    expect(stderr).toMatch(/--leaves must be a whole number from 1 to 10000 \(got "10001"\)/);
    expect(() => new TreeShape(10_001)).toThrow(/1 to 10,000 leaves/);
  });
});
