/**
 * Counter-based pseudo-randomness: a uniform number in [0, 1) that depends only on a seed and a
 * few integer coordinates (step, draw slot, stream), never on call order or timing. A resumed or
 * parallel run therefore sees exactly the numbers an uninterrupted sequential run sees.
 */
export function uniform(seed: number, a: number, b = 0, c = 0): number {
  return uniformAt(uniformPrefix(seed, a, b), c);
}

/**
 * The part of {@link uniform} that depends on `(seed, a, b)` only, for callers that draw several
 * streams `c` at the same coordinates: `uniformAt(uniformPrefix(seed, a, b), c)` equals
 * `uniform(seed, a, b, c)`.
 */
export function uniformPrefix(seed: number, a: number, b = 0): number {
  let h = mix32(seed ^ 0x9e3779b9);
  h = mix32(h ^ (a >>> 0));
  h = mix32(h ^ Math.floor(a / 0x100000000));
  return mix32(h ^ (b >>> 0));
}

/** {@link uniform} at stream `c` from a {@link uniformPrefix}. */
export function uniformAt(prefix: number, c: number): number {
  return mix32(prefix ^ (c >>> 0)) / 0x100000000;
}

/** A 32-bit finaliser (murmur3 fmix32): every input bit affects every output bit. */
function mix32(x: number): number {
  let h = x >>> 0;
  h ^= h >>> 16;
  h = Math.imul(h, 0x85ebca6b);
  h ^= h >>> 13;
  h = Math.imul(h, 0xc2b2ae35);
  h ^= h >>> 16;
  return h >>> 0;
}

/** Hashes a string (e.g. a node id) to a 32-bit integer coordinate for {@link uniform}. */
export function hashString(text: string): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) h = Math.imul(h ^ text.charCodeAt(i), 0x01000193);
  return mix32(h);
}

/** Fisher–Yates with a coordinate-keyed random source (deterministic per ballot). */
export function shuffle<T>(items: readonly T[], random: (i: number) => number): T[] {
  const out = [...items];
  for (let i = out.length - 1; i > 0; i--) {
    const j = Math.floor(random(i) * (i + 1));
    [out[i], out[j]] = [out[j] as T, out[i] as T];
  }
  return out;
}
