import type { Redactor } from '../../core/errors.js';
import type { Draw, TreeNode, VoteRecord } from '../../core/tree/schema.js';
import { sameShape, shapeOf } from './value-shape.js';

/** A vote field's text and what it was built from (see {@link shapeOf}). */
export interface VoteText {
  readonly text: string;
  /** Undefined when the text cannot be reused (a draw in progress, a value nested deeper). */
  readonly shape: readonly unknown[] | undefined;
  /** What a patch against this text compares with (a vote field but `integrations`). */
  readonly items?: VoteItems;
}

/**
 * What a vote's text was made of, item by item, for {@link VoteTexts.patch}: the text of its own
 * fields, and per slot of its draws and ballots the finished draw itself (replaced, never changed:
 * the engine's invariant), the text of a draw in progress (it may change in place), or null.
 */
interface VoteItems {
  readonly rest: string;
  readonly draws: readonly unknown[];
  readonly ballots: readonly unknown[];
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
    const items = this.#vote(value as VoteRecord, parts, keep);
    // Its shape from its second serialisation on: many votes are written once.
    return {
      text: parts.join(''),
      shape: cached === undefined ? undefined : shapeOf(value),
      items,
    };
  }

  /**
   * The JSON of a patch turning the vote `old` was made from into `value` (whose text is `next`,
   * just made by {@link field}): its own fields if they changed, and the draws and ballots that
   * changed, by slot (see `edits.ts`). Undefined when only the whole vote can say it: a list
   * shorter than before (the vote started over), or texts made without items.
   */
  patch(value: VoteRecord, next: VoteText, old: VoteText): string | undefined {
    const before = old.items;
    const after = next.items;
    if (before === undefined || after === undefined) return undefined;
    if (after.draws.length < before.draws.length || after.ballots.length < before.ballots.length)
      return undefined;
    const keep = value.outcome === undefined;
    const parts = ['{'];
    let sep = '';
    if (after.rest !== before.rest) {
      parts.push('"fields":', after.rest);
      sep = ',';
    }
    for (const list of ['draws', 'ballots'] as const) {
      const now = after[list];
      const then = before[list];
      let inner = '';
      for (let i = 0; i < now.length; i++) {
        const item = now[i];
        if (item === then[i]) continue;
        if (inner === '') parts.push(sep, '"', list, '":{');
        const text =
          item === null ? 'null' : typeof item === 'string' ? item : this.#draw(item as Draw, keep);
        parts.push(inner, '"', String(i), '":', text);
        inner = ',';
        sep = ',';
      }
      if (inner !== '') parts.push('}');
    }
    parts.push('}');
    return parts.join('');
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

  /** Appends the vote's text to `parts`: `redact(JSON.stringify(vote))` in meaning; returns its items. */
  #vote(vote: VoteRecord, parts: string[], keep: boolean): VoteItems {
    const { draws, ballots, ...rest } = vote;
    // A vote with an outcome is not drawn again: its own text is reused, its draws' are let go.
    const keepDraws = keep && rest.outcome === undefined;
    const json = this.#redact(JSON.stringify(rest));
    parts.push(json.slice(0, -1));
    const items = { rest: json, draws: [] as unknown[], ballots: [] as unknown[] };
    let sep = json === '{}' ? '' : ',';
    for (const [key, list] of [
      ['draws', draws],
      ['ballots', ballots],
    ] as const) {
      if (list === undefined) continue;
      parts.push(sep, '"', key, '":[');
      let inner = '';
      const refs = items[key];
      for (const d of list as (Draw | undefined)[]) {
        const text = this.#draw(d, keepDraws);
        parts.push(inner, text);
        refs.push(d === undefined || d === null ? null : d.status === 'started' ? text : d);
        inner = ',';
      }
      parts.push(']');
      sep = ',';
    }
    parts.push('}');
    return items;
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
