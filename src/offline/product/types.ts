/**
 * The data a built-in product idea is made of, for the realistic fake model and `maker bench
 * product`: the idea's text, its known decomposition (leaves, each with the wordings a planner
 * may give it), per-leaf file templates that render into several correct implementations, the
 * bugs a model makes in them, and the hidden acceptance tests MAKER never sees.
 */

/** One block of a file template; `helper` blocks may be written in any order among themselves. */
export interface TemplateBlock {
  readonly text: string;
  readonly helper?: boolean;
}

/**
 * A file as a template. In block text, `$name$` is a local name chosen per sample from `names`
 * (the first spelling is the canonical one), and a line `//~ text` is a comment a sample may keep
 * (as `// text`) or leave out. Indentation is written in 2 spaces; a sample may use 4.
 */
export interface FileTemplate {
  readonly path: string;
  readonly blocks: readonly TemplateBlock[];
  readonly names?: Readonly<Record<string, readonly string[]>>;
  /** Header comments a sample opens the file with (one of them, or none). */
  readonly headers?: readonly string[];
}

/**
 * A subtle bug a model makes in a leaf: `from` (in a block's template text, exactly once) becomes
 * `to`. The hidden tests must catch it; the leaf's own test may not.
 */
export interface LeafBug {
  readonly kind: 'off-by-one' | 'edge-case';
  readonly path: string;
  readonly from: string;
  readonly to: string;
}

/**
 * A plausible wrong answer models give for a leaf, the same way every time: `share` of the leaf's
 * wrong samples are this one, written identically (one style, no slip of its own), so they vote
 * together. Judges and reviewers take it for right. `edits` change the leaf's templates as a bug
 * does (each `from` exactly once in its file). `breaksLater`: its own check passes, but the checks
 * of later leaves that build on it fail (a manifest, a data model); otherwise only the hidden
 * tests see it (a check too weak to).
 */
export interface Misconception {
  readonly what: string;
  readonly share: number;
  readonly edits: readonly Omit<LeafBug, 'kind'>[];
  readonly breaksLater?: boolean;
}

/** An acceptance test: a test file and the command that runs it. */
export interface AcceptanceTestSpec {
  readonly path: string;
  readonly content: string;
  readonly command: string;
  /**
   * The same file as a test writer who shares the leaf's misconception writes it: it passes on the
   * misconceived code and fails on the right one (a wrong test that agrees with a wrong answer).
   */
  readonly misconceived?: string;
}

/** One minimal subtask of an idea's decomposition. */
export interface LeafSpec {
  /** Ways a planner titles it (each distinct from every other leaf's). */
  readonly titles: readonly string[];
  /** Ways a planner describes it: each must name the exported API the hidden tests use. */
  readonly descriptions: readonly string[];
  readonly acceptance: readonly (readonly string[])[];
  /** Its code file first, then its own test file (none for a manifest). */
  readonly files: readonly FileTemplate[];
  /** Indices of earlier leaves it builds on. */
  readonly dependsOn: readonly number[];
  /** The leaf's own check (runs its own test). */
  readonly check: string;
  /**
   * The check of its code alone, when a planner splits the leaf into its code and its test:
   * default, that the module loads (`node -e "import('./<file>')"`); a program that runs when
   * loaded needs one of its own.
   */
  readonly codeCheck?: string;
  /** The export a wrong sample misspells (in the first file), as `[right, wrong]`. */
  readonly exportSlip: readonly [string, string];
  readonly bugs: readonly LeafBug[];
  readonly misconception?: Misconception;
  /**
   * The acceptance test a right answer of the test role writes for it, from its description and
   * criteria alone (inside its files; failing without its code). Default: its own test file, run
   * by its check.
   */
  readonly acceptanceTest?: AcceptanceTestSpec;
}

/**
 * A part of a three-level idea: the root splits into groups, each group into its leaves. Its
 * check runs its leaves' tests.
 */
export interface GroupSpec {
  readonly titles: readonly string[];
  readonly descriptions: readonly string[];
  readonly acceptance: readonly string[];
  /** Indices of its leaves in {@link ProductIdea.leaves}. */
  readonly leaves: readonly number[];
  /** Indices of earlier groups it builds on. */
  readonly dependsOn: readonly number[];
  readonly check: string;
}

export interface HiddenTest {
  readonly path: string;
  readonly content: string;
}

export interface ProductIdea {
  /** Short name for `--ideas`. */
  readonly name: string;
  /** The idea as a person gives it to `maker run`. */
  readonly idea: string;
  readonly leaves: readonly LeafSpec[];
  /** The groups the root splits into (a three-level idea); absent: the root splits into its leaves. */
  readonly groups?: readonly GroupSpec[];
  /** What the product is written in (default `node`): how its hidden tests run. */
  readonly runtime?: 'node' | 'python';
  /**
   * Test files run on the landed tree from `.hidden-acceptance/`: with `node --test` (they import the
   * product by relative path), or for Python with `python3 -m unittest discover` (they import its
   * package from the product's directory).
   */
  readonly hiddenTests: readonly HiddenTest[];
}
