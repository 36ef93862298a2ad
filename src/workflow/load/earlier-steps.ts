// One list's ids in the order they finish. Most walks never ask for an id, so the lookup table is
// built only when one does, and then grown with the list.
class IdList {
  readonly ids: string[] = [];
  readonly #positions = new Map<string, number>();
  /** How many of `ids` are in #positions. */
  #indexed = 0;

  get length(): number {
    return this.ids.length;
  }

  add(ids: readonly string[]): void {
    this.ids.push(...ids);
  }

  /** Where `id` first finished in the list. */
  firstPosition(id: string): number | undefined {
    for (; this.#indexed < this.ids.length; this.#indexed += 1) {
      const added = this.ids[this.#indexed]!;
      if (!this.#positions.has(added)) this.#positions.set(added, this.#indexed);
    }
    return this.#positions.get(id);
  }
}

/**
 * Step ids that finish before one place in a workflow: a prefix of each enclosing list's ids. The
 * places of one list share its id table and differ only in how much of it they see, so a file of
 * N steps costs O(N) to walk rather than a copy of the ids per step (O(N²)).
 */
export class EarlierSteps {
  /** Before the first step: nothing has run. */
  static readonly none = new EarlierSteps(undefined, new IdList(), 0);

  readonly #outer: EarlierSteps | undefined;
  readonly #list: IdList;
  /** How many of the list's ids finish before this place. */
  readonly #count: number;

  private constructor(outer: EarlierSteps | undefined, list: IdList, count: number) {
    this.#outer = outer;
    this.#list = list;
    this.#count = count;
  }

  /** A list that starts here; `add` its steps' ids as they finish, `at` the place of each. */
  static listAfter(outer: EarlierSteps): { add(ids: readonly string[]): void; at(): EarlierSteps } {
    const list = new IdList();
    return {
      add: (ids) => list.add(ids),
      at: () => new EarlierSteps(outer, list, list.length),
    };
  }

  /** This place with `ids` finished as well. */
  with(ids: readonly string[]): EarlierSteps {
    const list = EarlierSteps.listAfter(this);
    list.add(ids);
    return list.at();
  }

  /** Whether step `id` finishes before this place. */
  has(id: string): boolean {
    const position = this.#list.firstPosition(id);
    return (position !== undefined && position < this.#count) || (this.#outer?.has(id) ?? false);
  }

  /** The ids, outermost list first, in file order. */
  *[Symbol.iterator](): Iterator<string> {
    if (this.#outer !== undefined) yield* this.#outer;
    yield* new Set(this.#list.ids.slice(0, this.#count));
  }
}
