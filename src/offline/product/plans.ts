import type { Rand } from './render.js';
import type { LeafSpec, ProductIdea } from './types.js';

/** What a node stands for in an idea's known decomposition. */
export type NodeScope =
  /** Several leaves (the whole project, or a part of it): to be split into them. */
  | { readonly kind: 'leaves'; readonly leaves: readonly number[] }
  /** One whole leaf: minimal. */
  | { readonly kind: 'leaf'; readonly leaf: number }
  /** Part of one leaf's files (a leaf split further): minimal. */
  | { readonly kind: 'part'; readonly leaf: number; readonly paths: readonly string[] };

/** Where a node with these files sits in the idea's decomposition; undefined when it is nowhere. */
export function scopeOf(idea: ProductIdea, files: readonly string[]): NodeScope | undefined {
  if (files.length === 0) return { kind: 'leaves', leaves: idea.leaves.map((_, i) => i) };
  const wanted = new Set(files);
  const touched = idea.leaves.flatMap((leaf, i) =>
    leaf.files.some((f) => wanted.has(f.path)) ? [i] : [],
  );
  if (touched.length === 0) return undefined;
  if (touched.length > 1) return { kind: 'leaves', leaves: touched };
  const leaf = touched[0] as number;
  const spec = idea.leaves[leaf] as LeafSpec;
  const paths = spec.files.map((f) => f.path).filter((p) => wanted.has(p));
  return paths.length === spec.files.length
    ? { kind: 'leaf', leaf }
    : { kind: 'part', leaf, paths };
}

/** The files a node's correct decomposition covers, sorted. */
export function scopeFiles(idea: ProductIdea, scope: NodeScope): string[] {
  const leaves = scope.kind === 'leaves' ? scope.leaves : [scope.leaf];
  const all = leaves.flatMap((i) => (idea.leaves[i] as LeafSpec).files.map((f) => f.path));
  return (scope.kind === 'part' ? all.filter((p) => scope.paths.includes(p)) : all).sort();
}

const pick = <T>(items: readonly T[], r: number): T =>
  items[Math.min(items.length - 1, Math.floor(r * items.length))] as T;

/** A wording: the first (most likely) half the time, else any. */
const word = <T>(items: readonly T[], r1: number, r2: number): T =>
  r1 < 0.5 ? (items[0] as T) : pick(items, r2);

interface PlannedSubtask {
  title: string;
  description: string;
  acceptance: string[];
  files: string[];
  /** What it promises its siblings, in one of two wordings (votes must not split on it). */
  provides?: string[];
  dependsOn: number[];
  check?: string;
}

/**
 * A decomposition of a node, as a planner writes it: its known subtasks in wordings that vary from
 * sample to sample. A wrong one (probability 1 − p) leaves a subtask out and invents another.
 */
export function planSplit(
  idea: ProductIdea,
  scope: NodeScope,
  rand: Rand,
  p: number,
): { answer: { subtasks: PlannedSubtask[]; ambiguity: null }; correct: boolean } {
  let subtasks: PlannedSubtask[];
  const groups = idea.groups;
  if (
    scope.kind === 'leaves' &&
    groups !== undefined &&
    scope.leaves.length === idea.leaves.length
  ) {
    // A three-level idea's root: its groups, each holding its leaves' files.
    subtasks = groups.map((group, i) => ({
      title: word(group.titles, rand(10 * i), rand(10 * i + 1)),
      description: word(group.descriptions, rand(10 * i + 2), rand(10 * i + 3)),
      acceptance: [...group.acceptance],
      files: group.leaves.flatMap((l) => (idea.leaves[l] as LeafSpec).files.map((f) => f.path)),
      dependsOn: [...group.dependsOn],
      check: group.check,
    }));
  } else if (scope.kind === 'leaves') {
    subtasks = scope.leaves.map((index, i) => {
      const leaf = idea.leaves[index] as LeafSpec;
      return {
        title: word(leaf.titles, rand(10 * i), rand(10 * i + 1)),
        description: word(leaf.descriptions, rand(10 * i + 2), rand(10 * i + 3)),
        acceptance: [...word(leaf.acceptance, rand(10 * i + 4), rand(10 * i + 5))],
        files: leaf.files.map((f) => f.path),
        provides: [
          rand(10 * i + 6) < 0.5
            ? `${leaf.exportSlip[0]}, exported by ${leaf.files[0]?.path ?? ''}`
            : `${leaf.files[0]?.path ?? ''} exports ${leaf.exportSlip[0]}`,
        ],
        dependsOn: leaf.dependsOn.flatMap((d) => {
          const at = scope.leaves.indexOf(d);
          return at >= 0 ? [at] : [];
        }),
        check: leaf.check,
      };
    });
  } else {
    // A leaf split further: its code, then its test (a leaf of one file: it, then notes on it).
    const leaf = idea.leaves[scope.leaf] as LeafSpec;
    const title = word(leaf.titles, rand(0), rand(1));
    const [code, ...tests] = leaf.files.map((f) => f.path);
    const notes = `docs/${(code as string).replace(/[^A-Za-z0-9]+/g, '-')}.md`;
    subtasks =
      tests.length === 0
        ? [
            {
              title: `${title}: the file`,
              description: word(leaf.descriptions, rand(2), rand(3)),
              acceptance: [...word(leaf.acceptance, rand(4), rand(5))],
              files: [code as string],
              dependsOn: [],
              check: leaf.check,
            },
            {
              title: `${title}: its notes`,
              description: `Write ${notes}, a short note on what ${code as string} holds and why.`,
              acceptance: [`${notes} is not empty`],
              files: [notes],
              dependsOn: [0],
              check: `test -s ${notes}`,
            },
          ]
        : [
            {
              title: `${title}: the code`,
              description: `${word(leaf.descriptions, rand(2), rand(3))} (The code only; its test is a separate subtask.)`,
              acceptance: ['the module loads'],
              files: [code as string],
              dependsOn: [],
              check: leaf.codeCheck ?? `node -e "import('./${code as string}')"`,
            },
            {
              title: `${title}: its test`,
              description: `Write ${tests.join(', ')} with ${code?.endsWith('.py') === true ? 'unittest' : 'node:test'} for: ${word(leaf.descriptions, rand(4), rand(5))}`,
              acceptance: ['the test passes'],
              files: tests,
              dependsOn: [0],
              check: leaf.check,
            },
          ];
  }
  const correct = rand(90) < p;
  if (!correct) {
    const dropped = Math.floor(rand(91) * subtasks.length);
    subtasks = subtasks
      .filter((_, i) => i !== dropped)
      .map((s) => ({
        ...s,
        dependsOn: s.dependsOn.flatMap((d) => (d === dropped ? [] : [d > dropped ? d - 1 : d])),
      }));
    subtasks.push({
      title: pick(['Document the usage', 'Write the README', 'Add usage notes'], rand(92)),
      description: 'Write README.md explaining how to use it, with examples.',
      acceptance: ['README.md explains usage'],
      files: ['README.md'],
      dependsOn: [],
    });
  }
  return { answer: { subtasks, ambiguity: null }, correct };
}

/** Whether a rendered decomposition covers exactly the files the node's known one does. */
export function splitIsCorrect(
  fileGroups: readonly string[][],
  expected: readonly string[],
): boolean {
  const listed = [...new Set(fileGroups.flat())].sort();
  return listed.length === expected.length && listed.every((f, i) => f === expected[i]);
}
