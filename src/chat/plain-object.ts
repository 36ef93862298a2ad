// V8 pretenures an allocation site (an object or array literal, `new Array`) when, at some
// young-generation GC, most of the objects it made lately were still alive: from then on that
// literal allocates in the old generation, where each object lives until a full GC and keeps
// every young object it points to alive too. Under 64 concurrent streams this happened in about
// half the runs, to the literals made for every streamed chunk (iterator results, a message's
// lc_kwargs and arrays), and it then cost more CPU than anything else on the client (measured
// with %InYoungGeneration and V8's --no-allocation-site-pretenuring). Objects made by `new` of an
// ordinary function, and arrays copied by `slice`, have no allocation site: they always start
// young. These helpers make the per-chunk objects that way; they are plain objects all the same.

/** A constructor of plain objects (prototype `Object.prototype`) from a function that sets their
 * fields: `new` of it makes what an object literal would, with no allocation site. */
export function plainObjectMaker<A extends unknown[], T extends object>(fields: (this: T, ...args: A) => void): new (...args: A) => T {
  fields.prototype = Object.prototype;
  return fields as unknown as new (...args: A) => T;
}

const EMPTY: never[] = [];

/** A fresh empty array, made without an allocation site. */
export function emptyArray<T>(): T[] {
  return EMPTY.slice();
}

// Templates of the small lengths per-event arrays have: a copy has exactly that many slots, where
// pushing into an empty array first gives it room for 17 (~130 bytes more for one element).
const SIZED: readonly undefined[][] = [[], [undefined], [undefined, undefined], [undefined, undefined, undefined], [undefined, undefined, undefined, undefined]];

/** A fresh array of `length` slots to be filled by index (undefined until then), made without an
 * allocation site and without spare room. */
export function arrayOfLength<T>(length: number): T[] {
  const template = SIZED[length];
  return (template === undefined ? Array.from({ length }) : template.slice()) as T[];
}

/** A fresh empty plain object, made without an allocation site (and, with no fields, smaller
 * than `{}`, which reserves four). */
export const EmptyObject = plainObjectMaker(function (this: object) {});

/** `{ done: false, value }`, made without an allocation site. */
export const IteratorStep = plainObjectMaker(function <T>(this: IteratorYieldResult<T>, value: T) {
  (this as { done: boolean }).done = false;
  (this as { value: T }).value = value;
}) as new <T>(value: T) => IteratorYieldResult<T>;
