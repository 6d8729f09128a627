import { z } from 'zod';
import { showPath } from './paths.js';
import { pooling } from './voting/behaviour.js';
import { poolingSaid } from './view/pooling.js';
import { programFlags, programKey, type ProgramRules, type VotedProgram } from './voted-program.js';
import type { TreeNode, VoteRecord } from './tree/schema.js';
import type { RedFlag } from './voting/types.js';

/**
 * An acceptance test a model wrote from a leaf's task and acceptance criteria alone, never from a
 * code candidate (test-first, as CodeT and AlphaCode): one test file, and the command that runs it.
 */
export type AcceptanceTest = VotedProgram;

/** The most characters a test file may have: a longer one is a confused answer. */
export const TEST_MAX_CHARS = 20_000;

export const acceptanceTestShape = z.object({
  path: z.string().min(1).max(512),
  content: z.string().min(1),
  command: z.string().min(1).max(500),
});

/** The answer of the test role: a test, or null when the criteria describe no behaviour to test. */
export const testAnswerSchema = z.object({
  test: acceptanceTestShape.nullable(),
  reason: z.string().max(2000).default(''),
});
export type TestAnswer = z.infer<typeof testAnswerSchema>;

/** The vote key of "no behaviour to test". */
export const NO_TEST = 'none';

/** Whether a path names a test file (`test/…`, `tests/…`, `*.test.js`, `*_test.py`, `test_*.py`, `*_test.go`). */
export function isTestPath(path: string): boolean {
  const name = path.slice(path.lastIndexOf('/') + 1);
  return (
    /(^|\/)(tests?|__tests__|spec)\//.test(path) ||
    /[._-](test|spec)\.[cm]?[jt]sx?$/.test(name) ||
    /^test_.+\.py$|_test\.py$|_test\.go$/.test(name)
  );
}

/** How a test answer is red-flagged: only a test file may hold it. */
const TEST_RULES: ProgramRules = {
  noun: 'test',
  maxChars: TEST_MAX_CHARS,
  allowedPath: isTestPath,
  wrongPath: {
    rule: 'not-a-test-file',
    message: (path) =>
      `${showPath(path)} is not a test file: an acceptance test may write nothing else.`,
  },
  oversizedRule: 'oversized-test',
  notRunRule: 'test-not-run',
};

/**
 * Whether a leaf that may write `scope` has a file of its own that can hold a test. One that has
 * none (the code half of a leaf split into its code and its test, a module without its test) gets
 * its acceptance test at a new test file outside its files ({@link testAnswerFlags}).
 */
export function holdsTests(scope: readonly string[]): boolean {
  return scope.length === 0 || scope.some(isTestPath);
}

/**
 * The red flags of a test answer, for a leaf that may write `scope` (empty: anywhere): an unsafe
 * or MAKER-owned path, a file that is not a test file, a path outside the leaf's files, an
 * oversized file, and a command that does not name the test it is to run. A leaf with no file of
 * its own that can hold a test ({@link holdsTests}) may have its test at a path outside its files
 * that `free` says no other subtask writes: such a test gates the leaf's candidates and is not
 * committed with its result. Returns the test with its path made canonical, or the flags.
 */
export function testAnswerFlags(
  test: AcceptanceTest,
  scope: readonly string[],
  free?: (path: string) => boolean,
): { readonly ok: true; readonly test: AcceptanceTest } | { readonly ok: false; flags: RedFlag[] } {
  const checked = programFlags(
    test,
    scope,
    TEST_RULES,
    holdsTests(scope) || free === undefined ? undefined : free,
  );
  return checked.ok ? { ok: true, test: checked.program } : checked;
}

/**
 * A test answer's vote key: its path, its command with whitespace normalised, and its content
 * without comments and layout (`normalizeSourceText`), so tests that differ only in those agree.
 */
export function testKey(test: AcceptanceTest | null): string {
  return test === null ? NO_TEST : programKey(test);
}

/**
 * What a check proves, in a few words, guessed from its command: a test run, a file parsed, a
 * module loaded, or a command run. For the plan and status (issue #36: say what each check proves).
 */
export function checkProves(command: string): string {
  if (/--test\b|unittest|pytest|jest|vitest|mocha|go test|cargo test|npm test/.test(command))
    return 'runs tests';
  if (/JSON\.parse|json\.load|tomllib|yaml/.test(command)) return 'parses a file';
  if (/import\(|require\(|-c ["']?import |node -e|python3? -c/.test(command))
    return 'loads a module';
  if (/^\s*(test|\[) -[fesd]/.test(command)) return 'checks a file exists';
  return 'runs a command';
}

/** The test of a test vote's class `key` (validated again: it comes back from the state file). */
export function testOfClass(
  record: VoteRecord,
  key: string | undefined,
): AcceptanceTest | undefined {
  if (key === undefined || key === NO_TEST) return undefined;
  const draw = record.draws.find((d) => d.status === 'valid' && d.key === key);
  const parsed = acceptanceTestShape.safeParse(draw?.value);
  return parsed.success ? parsed.data : undefined;
}

/** The test a leaf's acceptance-test vote settled on. */
export function winningTest(record: VoteRecord): AcceptanceTest | undefined {
  return testOfClass(record, record.outcome?.key);
}

/** The leaf's kept acceptance test, if it has one. */
export function keptTest(n: TreeNode): AcceptanceTest | undefined {
  return n.acceptanceTest?.status === 'kept' ? winningTest(n.acceptanceTest.vote) : undefined;
}

/** A leaf's contested acceptance test: it gates nothing, and keys the candidates' votes. */
export function contestedTest(n: TreeNode): AcceptanceTest | undefined {
  return n.acceptanceTest?.status === 'contested' ? winningTest(n.acceptanceTest.vote) : undefined;
}

/**
 * A leaf's acceptance test in one line, for the view and the pull request: its path and command,
 * and whether it was kept (and how it is in the result), discarded or dropped; undefined when the
 * leaf has no settled test vote. Plain text: the path and command are model output, so callers
 * escape it for their markup.
 */
export function acceptanceTestLine(n: TreeNode): string | undefined {
  const state = n.acceptanceTest;
  if (state?.status === undefined) return undefined;
  if (state.status === 'none') return 'no acceptance test (the planned check decides)';
  const test = winningTest(state.vote);
  const what =
    test === undefined ? 'acceptance test' : `acceptance test ${test.path} (${test.command})`;
  if (state.status === 'discarded') return `${what}: discarded, it passed without the code`;
  if (state.status === 'dropped') return `${what}: dropped, every candidate failed it`;
  if (state.status === 'contested')
    return `${what}: contested, candidates that passed the planned check failed it alike; how each fares under it keys its vote`;
  const landed =
    state.committed === 'added'
      ? ', committed with the result'
      : state.committed === 'theirs'
        ? "; the result's own file at that path was committed instead"
        : state.committed === 'gate'
          ? ", outside the subtask's files: it gated the candidates and is not committed"
          : '';
  return `${what}: kept, fails without the code${landed}`;
}

/** The node's checks and what each proves, for the plan and status. */
export function checksSaid(n: TreeNode): string[] {
  const lines: string[] = [];
  if (n.check !== undefined)
    lines.push(`planned check \`${n.check}\`: ${checkProves(n.check)} (as the plan gave it)`);
  const state = n.acceptanceTest;
  if (state?.status !== undefined && state.reason !== undefined) lines.push(state.reason);
  else if (state !== undefined) lines.push('acceptance test: being voted from the criteria');
  const probe = n.probe;
  if (probe?.status !== undefined && probe.reason !== undefined) lines.push(probe.reason);
  else if (probe !== undefined) lines.push('probe: being voted from the criteria');
  const pooled = n.leaf === undefined ? undefined : pooling(n.leaf);
  if (pooled !== undefined) lines.push(poolingSaid(pooled));
  return lines;
}
