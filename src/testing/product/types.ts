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

/** One minimal subtask of an idea's decomposition. */
export interface LeafSpec {
  /** Ways a planner titles it (each distinct from every other leaf's). */
  readonly titles: readonly string[];
  /** Ways a planner describes it: each must name the exported API the hidden tests use. */
  readonly descriptions: readonly string[];
  readonly acceptance: readonly (readonly string[])[];
  /** Code files first, then the leaf's own test file. */
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
  /** `node --test` files run on the landed tree; they import the product by relative path from `hidden/`. */
  readonly hiddenTests: readonly HiddenTest[];
}
