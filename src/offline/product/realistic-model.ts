import { hashString, uniform } from '../../core/random.js';
import type { GenerateRequest, GenerateResult, LanguageModel } from '../../ports/language-model.js';
import { PRODUCT_IDEAS } from './ideas/index.js';
import { planSplit, scopeFiles, scopeOf, splitIsCorrect, type NodeScope } from './plans.js';
import {
  addedLines,
  ballotOptions,
  looksLikeDiff,
  nodeFacts,
  promptKind,
  splitFileGroups,
  UnrecognisedPromptError,
  type NodeFacts,
  type PromptKind,
} from './prompt-kinds.js';
import {
  formatOf,
  slipRates,
  slipsFor,
  writeAnswer,
  type AnswerFormat,
  type SlipRates,
} from './answer-format.js';
import { sampleLeaf, type Flaw, type Rand, type Slip } from './render.js';
import { mergedFiles } from './merge-answer.js';
import { testAnswer } from './acceptance-answers.js';
import { probeAnswer } from './probe-answers.js';
import { emptyStats, type RealisticStats } from './realistic-stats.js';
import {
  ballotAnswer,
  blameAnswer,
  isBlameBallot,
  looksRight,
  reviewAnswer,
  type Written,
} from './judges.js';
import type { LeafSpec, ProductIdea } from './types.js';

export type { RealisticStats };

/** The knobs of the realistic fake model. */
export interface RealisticKnobs {
  /** Chance a sample (a plan, a minimality answer, each leaf's code) is right. */
  readonly p: number;
  /**
   * Chance a code sample also has a slip in how it is written down (default 0.1): it scales the
   * rates of each slip of each edit format ({@link DEFAULT_SLIP_RATES}, set for 0.1).
   */
  readonly slip: number;
  /** Rates of single slips, instead of the scaled defaults. */
  readonly slipRates?: Partial<SlipRates>;
  /** Chance a judge picks a right option when there is one; a reviewer's accuracy. */
  readonly judgeAccuracy: number;
  readonly seed: number;
  /** The ideas it knows (default: the built-in ones). */
  readonly ideas?: readonly ProductIdea[];
}

/**
 * A fake language model that answers every prompt MAKER sends the way a real model does, for the
 * built-in product ideas: plans that vary in wording and are sometimes wrong; code that is right
 * with probability p in one of many forms (names, indentation, comments, order of helpers), else
 * off by one, missing an edge case, exporting a misspelled name, importing a missing module or cut
 * short; slips in how files are written down; judges and reviewers right with a set accuracy.
 * Every answer depends only on the seed, the idea and the request's draw id (or, without one, the
 * prompt and how many identical prompts came before), so a run is reproducible per seed.
 * A prompt it cannot place throws {@link UnrecognisedPromptError}, naming it.
 */
export class RealisticModel implements LanguageModel {
  readonly id = 'realistic-fake';
  readonly stats: RealisticStats = emptyStats();
  readonly #knobs: RealisticKnobs;
  readonly #slips: SlipRates;
  readonly #ideas: readonly ProductIdea[];
  readonly #written: Written[] = [];
  readonly #occurrences = new Map<string, number>();
  /** Titles of subtasks for which it passed (reviewed "ok") a right sample. */
  readonly #passedRight = new Set<string>();
  /** The files of every subtask it has planned, by title: to place a prompt that does not list them. */
  readonly #planned = new Map<string, readonly string[]>();

  constructor(knobs: RealisticKnobs) {
    this.#knobs = knobs;
    this.#slips = slipRates(knobs.slip, knobs.slipRates);
    this.#ideas = knobs.ideas ?? PRODUCT_IDEAS;
  }

  // eslint-disable-next-line @typescript-eslint/require-await -- the port is async; the fake is not
  async generate(request: GenerateRequest): Promise<GenerateResult> {
    const text = this.answer(request);
    return {
      text,
      finishReason: 'stop',
      inputTokens: Math.ceil(((request.system ?? '').length + request.prompt.length) / 4),
      outputTokens: Math.ceil(text.length / 4),
    };
  }

  /** The answer's text for a request (synchronous: the fake thinks instantly). */
  answer(request: Pick<GenerateRequest, 'prompt' | 'draw' | 'json' | 'temperature'>): string {
    const kind = promptKind(request);
    const facts = this.#placed(nodeFacts(request, this.#ideas), request);
    this.stats.calls[kind] += 1;
    const rand = this.#rand(kind, facts.idea, request);
    const scope = scopeOf(facts.idea, facts.files);
    switch (kind) {
      case 'minimal':
        return this.#minimal(scope, rand);
      case 'split':
        return this.#split(facts, scope, rand, request);
      case 'worker':
        return this.#worker(facts, scope, rand, request);
      case 'ballot':
        return this.#ballot(facts, scope, rand, request.prompt);
      case 'review':
        return this.#review(facts, scope, rand, request.prompt);
      case 'test': {
        const answer = testAnswer(facts.idea, scope, rand, this.#knobs.p);
        this.stats.tests[answer.kind] = (this.stats.tests[answer.kind] ?? 0) + 1;
        return answer.text;
      }
      case 'probe': {
        const answer = probeAnswer(facts.idea, scope, rand, this.#knobs.p);
        this.stats.probes[answer.kind] = (this.stats.probes[answer.kind] ?? 0) + 1;
        return answer.text;
      }
    }
  }

  /**
   * A node's files when its prompt does not list them: none for the root (titled with the idea),
   * else those the fake planned under its title. Anything else it cannot place, and says so.
   */
  #placed(facts: NodeFacts, request: Pick<GenerateRequest, 'prompt' | 'draw' | 'json'>): NodeFacts {
    if (facts.filesSaid || facts.title === facts.idea.idea.slice(0, 200)) return facts;
    const files = facts.title === undefined ? undefined : this.#planned.get(facts.title);
    if (files === undefined)
      throw new UnrecognisedPromptError(
        `a subtask whose files the prompt does not list and whose title ("${facts.title ?? ''}") it never planned`,
        request,
      );
    return { ...facts, files, filesSaid: true };
  }

  /**
   * The numbers one answer is made from. Each draw has its own, except that at a low temperature
   * T (below 0.5) a sample repeats the prompt's greedy answer with probability 1 − 2T, as real
   * models do: near-identical samples, whose errors are not independent.
   */
  #rand(
    kind: PromptKind,
    idea: ProductIdea,
    request: Pick<GenerateRequest, 'prompt' | 'draw' | 'temperature'>,
  ): Rand {
    const prompt = String(hashString(request.prompt));
    let key = request.draw;
    if (key === undefined) {
      const seen = this.#occurrences.get(prompt) ?? 0;
      this.#occurrences.set(prompt, seen + 1);
      key = `${prompt}#${seen}`;
    }
    const t = request.temperature ?? 1;
    const repeat = uniform(this.#knobs.seed, hashString(`repeat|${idea.name}|${kind}|${key}`));
    if (repeat < 1 - 2 * t) key = `greedy|${prompt}`;
    const at = hashString(`${idea.name}|${kind}|${key}`);
    return (stream) => uniform(this.#knobs.seed, at, stream);
  }

  #minimal(scope: NodeScope | undefined, rand: Rand): string {
    // A part of a leaf, or a subtask the idea does not have, is small enough: always minimal.
    const right = scope === undefined || scope.kind !== 'leaves';
    const minimal =
      scope?.kind === 'part' || scope === undefined || rand(0) < this.#knobs.p ? right : !right;
    const reasons = minimal
      ? [
          'One module and its test: small enough to write and check in one go.',
          'A single file with a focused test; under 200 lines.',
        ]
      : [
          'Several modules with separate concerns: it should be split.',
          'Too large for one change: it spans several files.',
        ];
    return JSON.stringify({ minimal, reason: reasons[rand(1) < 0.5 ? 0 : 1] });
  }

  #split(
    facts: NodeFacts,
    scope: NodeScope | undefined,
    rand: Rand,
    request: Pick<GenerateRequest, 'prompt' | 'draw' | 'json'>,
  ): string {
    if (scope === undefined)
      throw new UnrecognisedPromptError(
        `a split of an unknown subtask (files ${facts.files.join(', ')})`,
        request,
      );
    const effective: NodeScope =
      scope.kind === 'leaves' && scope.leaves.length === 1
        ? { kind: 'leaf', leaf: scope.leaves[0] as number }
        : scope;
    const { answer, correct } = planSplit(facts.idea, effective, rand, this.#knobs.p);
    for (const subtask of answer.subtasks) this.#planned.set(subtask.title, subtask.files);
    if (correct) this.stats.plans.correct += 1;
    else this.stats.plans.wrong += 1;
    return JSON.stringify(answer);
  }

  #worker(
    facts: NodeFacts,
    scope: NodeScope | undefined,
    rand: Rand,
    request: Pick<GenerateRequest, 'prompt' | 'draw' | 'json'>,
  ): string {
    const format = formatOf(request);
    if (request.prompt.includes('=== ours: ')) return this.#integrate(rand, request.prompt, format);
    if (scope === undefined) {
      const readme = facts.files.find((f) => /readme|\.md$/i.test(f));
      if (readme !== undefined) {
        // An invented subtask (a wrong plan's): harmless prose with a usage example, right as far
        // as it goes (its ``` lines are what the fenced format's `fence-inside` slip trips on).
        const content = `# ${facts.idea.name}\n\n${facts.idea.idea}.\n\n## Usage\n\n\`\`\`sh\nnpm test\n\`\`\`\n`;
        const files = [{ path: readme, content }];
        const written = this.#write(format, files, 'Document the usage', 'none', rand);
        this.#remember(
          files,
          'correct',
          written.slip,
          written.slip === 'none' ? 'invented' : undefined,
        );
        return written.text;
      }
      throw new UnrecognisedPromptError(
        `a worker task the idea does not have (files ${facts.files.join(', ')})`,
        request,
      );
    }
    const leaves = scope.kind === 'leaves' ? scope.leaves : [scope.leaf];
    const paths = scope.kind === 'part' ? new Set(scope.paths) : undefined;
    const files: { path: string; content: string }[] = [];
    let flaw: Flaw = 'correct';
    let slip: Slip = 'none';
    leaves.forEach((index, i) => {
      const leafRand: Rand = (s) => rand(100_000 * (i + 1) + s);
      const sample = sampleLeaf(
        facts.idea.leaves[index] as LeafSpec,
        leafRand,
        { p: this.#knobs.p, slips: slipsFor(format, this.#slips) },
        paths,
      );
      files.push(...sample.files);
      if (flaw === 'correct') flaw = sample.flaw;
      if (slip === 'none') slip = sample.slip;
    });
    const summaries = [
      'Implement the subtask',
      `Add ${files.map((f) => f.path).join(' and ')}`,
      'Write the module and its test',
    ];
    const summary = summaries[Math.floor(rand(7) * 3)] ?? '';
    const written = this.#write(format, files, summary, slip, rand);
    this.#remember(files, flaw, written.slip);
    return written.text;
  }

  /** The answer's text in the format asked for, with the format's slips (the one it made returned). */
  #write(
    format: AnswerFormat,
    files: readonly { path: string; content: string }[],
    summary: string,
    slip: Slip,
    rand: Rand,
  ): { text: string; slip: Slip } {
    return writeAnswer(format, { files, summary }, slip, {
      rand,
      fenceInside: this.#slips.fenceInside,
    });
  }

  /** A merge conflict: both sides' lines (ours first) with probability p, else ours alone. */
  #integrate(rand: Rand, prompt: string, format: AnswerFormat): string {
    const files = mergedFiles(prompt, rand(0) < this.#knobs.p);
    return this.#write(format, files, 'Reconcile both branches', 'none', rand).text;
  }

  #remember(files: readonly { content: string }[], flaw: Flaw, slip: Slip, counted?: string): void {
    const lines = new Set(
      files.flatMap((f) =>
        f.content
          .split('\n')
          .map((l) => l.trim())
          .filter((l) => l !== ''),
      ),
    );
    this.#written.push({ lines, flaw, slip });
    const key = counted ?? (slip !== 'none' ? `slip:${slip}` : flaw);
    this.stats.code[key] = (this.stats.code[key] ?? 0) + 1;
  }

  /** The sample a diff shows: the smallest one holding every line it adds (none: counted unmatched). */
  #recall(diff: string): Written | undefined {
    const found = this.#find(diff);
    if (found === undefined && addedLines(diff).length > 0) this.stats.unmatched += 1;
    return found;
  }

  #find(diff: string): Written | undefined {
    const added = addedLines(diff);
    if (added.length === 0) return undefined;
    let best: Written | undefined;
    for (const w of this.#written)
      if (
        added.every((l) => w.lines.has(l)) &&
        (best === undefined || w.lines.size < best.lines.size)
      )
        best = w;
    return best;
  }

  /**
   * What the fake wrote that a diff shows (the smallest sample holding every line it adds), for a
   * report: its flaw and slip; undefined when no sample it wrote holds them.
   */
  writtenAs(diff: string): { readonly flaw: Flaw; readonly slip: Slip } | undefined {
    const best = this.#find(diff);
    return best === undefined ? undefined : { flaw: best.flaw, slip: best.slip };
  }

  /**
   * Whether a right sample of the subtask titled `title` passed its review: the reviewer is the
   * last red flag, so it was a valid candidate of that subtask's vote.
   */
  passedRight(title: string): boolean {
    return this.#passedRight.has(title);
  }

  /**
   * Whether an option is right: true, false, or undefined when the fake cannot tell. A
   * misconception looks right: it is plausible, and a judge reading it takes it for right.
   */
  #isRight(content: string, facts: NodeFacts, scope: NodeScope | undefined): boolean | undefined {
    if (looksLikeDiff(content)) {
      const written = this.#recall(content);
      return written === undefined ? undefined : looksRight(written);
    }
    if (scope === undefined) return undefined;
    return splitIsCorrect(splitFileGroups(content), scopeFiles(facts.idea, scope));
  }

  #ballot(facts: NodeFacts, scope: NodeScope | undefined, rand: Rand, prompt: string): string {
    const options = ballotOptions(prompt);
    if (options.length === 0)
      throw new UnrecognisedPromptError('a ballot with no "=== Option X ===" sections', { prompt });
    if (isBlameBallot(prompt))
      return blameAnswer(options, (c) => this.#find(c), rand, this.#knobs.judgeAccuracy);
    const judged = options.map((o) => ({
      label: o.label,
      right: this.#isRight(o.content, facts, scope),
    }));
    return ballotAnswer(judged, rand, this.#knobs.judgeAccuracy);
  }

  #review(facts: NodeFacts, scope: NodeScope | undefined, rand: Rand, prompt: string): string {
    const proposal = prompt.split(/A proposal for this task[^\n]*\n/)[1] ?? prompt;
    const diff = looksLikeDiff(proposal);
    const wrongPlan =
      !diff &&
      scope !== undefined &&
      !splitIsCorrect(splitFileGroups(proposal), scopeFiles(facts.idea, scope));
    const review = reviewAnswer(
      diff ? this.#recall(proposal) : undefined,
      wrongPlan,
      rand,
      this.#knobs.judgeAccuracy,
    );
    if (!review.suspect && diff && facts.title !== undefined) {
      const written = this.#find(proposal);
      if (written?.flaw === 'correct' && written.slip === 'none')
        this.#passedRight.add(facts.title);
    }
    return review.text;
  }
}
