/** How a leaf's probe keyed its code vote's valid candidates (`engine/probe.ts`), in counts. */
export interface Pooling {
  /** Distinct texts among the candidates keyed by behaviour. */
  readonly texts: number;
  /** Distinct behaviours among them. */
  readonly behaviours: number;
  /** Candidates the probe ran on whose run keyed nothing (they vote by their text). */
  readonly byText: number;
}

/** A vote's pooling in words: `pooled by behaviour: 3 texts, 1 behaviour`. */
export function poolingSaid(p: Pooling): string {
  const s = (count: number, noun: string) => `${count} ${noun}${count === 1 ? '' : 's'}`;
  const byText =
    p.byText === 0
      ? ''
      : ` (${s(p.byText, 'candidate')} by text: the probe showed nothing of ${p.byText === 1 ? 'it' : 'them'})`;
  return `pooled by behaviour: ${s(p.texts, 'text')}, ${s(p.behaviours, 'behaviour')}${byText}`;
}
