import type { Redactor } from '../../core/errors.js';
import type { Draw, TreeNode, VoteRecord } from '../../core/tree/schema.js';
import { sameShape, shapeOf } from './value-shape.js';

/** A vote field's text and what it was built from (see {@link shapeOf}). */
export interface VoteText {
  readonly text: string;
  /** Undefined when the text cannot be reused (a draw in progress, a value nested deeper). */
  readonly shape: readonly unknown[] | undefined;
}

export type VoteField = 'minimal' | 'split' | 'leaf' | 'integrations';
export type Integrations = TreeNode['integrations'];

/**
 * The redacted JSON text of a node's votes, reused while a vote is made of the same values (its
 * fields, and the same finished draws); a finished draw's text is built once, and kept until its
 * vote has an outcome.
 */
export class VoteTexts {
  readonly #redact: Redactor;
  readonly #draws = new WeakMap<Draw, string>();

  constructor(redact: Redactor) {
    this.#redact = redact;
  }

  /**
   * The text of `value` (the node's field `field`), reusing `cached` if it still holds. `keep`:
   * finished draws' texts are kept for the next call (not for a done node's, made once).
   */
  field(
    field: VoteField,
    value: VoteRecord | Integrations,
    cached?: VoteText,
    keep = true,
  ): VoteText {
    if (field === 'integrations') return this.#integrations(value as Integrations, cached, keep);
    if (cached?.shape !== undefined && sameShape(value, cached.shape)) return cached;
    const parts: string[] = [];
    this.#vote(value as VoteRecord, parts, keep);
    // Its shape from its second serialisation on: many votes are written once.
    return { text: parts.join(''), shape: cached === undefined ? undefined : shapeOf(value) };
  }

  /**
   * Lets go of the texts of the vote's finished draws: its node's text is kept whole once it is
   * done, and a draw's text kept beside it would hold the same bytes twice, as long as the run.
   */
  forget(field: VoteField, value: VoteRecord | Integrations): void {
    const votes =
      field === 'integrations' ? Object.values(value as Integrations) : [value as VoteRecord];
    for (const vote of votes) {
      if (vote === undefined) continue;
      for (const d of vote.draws) if (d !== undefined && d !== null) this.#draws.delete(d);
      for (const d of vote.ballots ?? []) if (d !== undefined && d !== null) this.#draws.delete(d);
    }
  }

  #integrations(value: Integrations, cached: VoteText | undefined, keep: boolean): VoteText {
    const shape = cached?.shape;
    if (shape !== undefined) {
      let i = 0;
      let same = true;
      for (const key in value) {
        const vote = value[key];
        const s = shape[i + 1];
        if (shape[i] !== key || vote === undefined || s === undefined) same = false;
        else same = sameShape(vote, s as unknown[]);
        if (!same) break;
        i += 2;
      }
      if (same && i === shape.length) return cached as VoteText;
    }
    const parts = ['{'];
    const next: unknown[] | undefined = [];
    let reusable = cached !== undefined; // its shape from its second serialisation on
    let sep = '';
    for (const key in value) {
      const vote = value[key];
      if (vote === undefined) continue;
      parts.push(sep, JSON.stringify(key), ':');
      this.#vote(vote, parts, keep);
      const s = reusable ? shapeOf(vote) : undefined;
      if (s === undefined) reusable = false;
      else next.push(key, s);
      sep = ',';
    }
    parts.push('}');
    return { text: parts.join(''), shape: reusable ? next : undefined };
  }

  /** Appends the vote's text to `parts`: `redact(JSON.stringify(vote))` in meaning. */
  #vote(vote: VoteRecord, parts: string[], keep: boolean): void {
    const { draws, ballots, ...rest } = vote;
    // A vote with an outcome is not drawn again: its own text is reused, its draws' are let go.
    const keepDraws = keep && rest.outcome === undefined;
    const json = this.#redact(JSON.stringify(rest));
    parts.push(json.slice(0, -1));
    let sep = json === '{}' ? '' : ',';
    for (const [key, list] of [
      ['draws', draws],
      ['ballots', ballots],
    ] as const) {
      if (list === undefined) continue;
      parts.push(sep, '"', key, '":[');
      let inner = '';
      for (const d of list as (Draw | undefined)[]) {
        parts.push(inner, this.#draw(d, keepDraws));
        inner = ',';
      }
      parts.push(']');
      sep = ',';
    }
    parts.push('}');
  }

  #draw(draw: Draw | undefined, keep: boolean): string {
    if (draw === undefined || draw === null) return 'null';
    if (draw.status === 'started') return this.#redact(JSON.stringify(draw));
    let json = this.#draws.get(draw);
    if (json === undefined) {
      json = this.#redact(JSON.stringify(draw));
      if (keep) this.#draws.set(draw, json);
    } else if (!keep) this.#draws.delete(draw);
    return json;
  }
}
