import type { Draw } from '../../core/tree/schema.js';

const ARRAY = Symbol('array');
const OBJECT = Symbol('object');
const END = Symbol('end');

/** Keys a shape leaves out (the caller serialises them some other way). */
export type Skip = ReadonlySet<string> | undefined;

/** An item a shape holds by identity: a finished draw (replaced, never changed: the engine's invariant). */
const finishedDraw = (item: object): boolean =>
  (item as Draw).status === 'valid' || (item as Draw).status === 'flagged';

/** Appends a flat object's fields to `out`; false if one of them is an object. */
function flat(value: object, out: unknown[]): boolean {
  out.push(OBJECT);
  for (const k in value) {
    const v = (value as Record<string, unknown>)[k];
    if (typeof v === 'object' && v !== null) return false;
    out.push(k, v);
  }
  out.push(END);
  return true;
}

/**
 * What an object's JSON is made of, flat, for {@link sameShape}: its fields' names (but `skip`) and
 * values; each array's length and items; each nested object's fields, when they are all primitive;
 * an array's finished draw by identity. Undefined if the object holds anything else (a draw in
 * progress, a deeper value): its text must then be built afresh every time.
 */
export function shapeOf(object: object, skip?: Skip): unknown[] | undefined {
  const out: unknown[] = [];
  for (const key in object) {
    if (skip?.has(key) === true) continue;
    const value = (object as Record<string, unknown>)[key];
    out.push(key);
    if (typeof value !== 'object' || value === null) {
      out.push(value);
    } else if (Array.isArray(value)) {
      out.push(ARRAY, value.length);
      for (const item of value as unknown[]) {
        if (typeof item !== 'object' || item === null || finishedDraw(item)) out.push(item);
        else if (Array.isArray(item) || !flat(item, out)) return undefined;
      }
    } else if (!flat(value, out)) {
      return undefined;
    }
  }
  return out;
}

/** Whether a flat object's fields are those `shape` holds from `i`: the index after them, or -1. */
function sameFlat(value: object, shape: readonly unknown[], i: number): number {
  if (shape[i++] !== OBJECT) return -1;
  for (const k in value) {
    if (shape[i++] !== k || shape[i++] !== (value as Record<string, unknown>)[k]) return -1;
  }
  return shape[i++] === END ? i : -1;
}

/** Whether `object` is still made of exactly what `shape` holds (see {@link shapeOf}, the same `skip`). */
export function sameShape(object: object, shape: readonly unknown[], skip?: Skip): boolean {
  let i = 0;
  for (const key in object) {
    if (skip?.has(key) === true) continue;
    if (shape[i++] !== key) return false;
    const value = (object as Record<string, unknown>)[key];
    if (typeof value !== 'object' || value === null) {
      if (shape[i++] !== value) return false;
    } else if (Array.isArray(value)) {
      if (shape[i++] !== ARRAY || shape[i++] !== value.length) return false;
      for (const item of value as unknown[]) {
        if (shape[i] === item) i += 1;
        else if (typeof item !== 'object' || item === null || finishedDraw(item)) return false;
        else if ((i = sameFlat(item, shape, i)) < 0) return false;
      }
    } else if ((i = sameFlat(value, shape, i)) < 0) {
      return false;
    }
  }
  return i === shape.length;
}
