/**
 * Step ids that finish before one place in a workflow: a prefix of each enclosing list's ids. The
 * places of one list share its id table and differ only in how much of it they see, so a file of
 * N steps costs O(N) to walk rather than a copy of the ids per step (O(N²)).
 */
export class EarlierSteps {
  /** Before the first step: nothing has run. */
  static readonly none = new EarlierSteps(undefined, new Map(), 0);

  readonly #outer: EarlierSteps | undefined;
  /** Ids of one list in file order, with their position; grown by the list's walk. */
  readonly #positions: Map<string, number>;
  readonly #count: number;

  private constructor(outer: EarlierSteps | undefined, positions: Map<string, number>, count: number) {
    this.#outer = outer;
    this.#positions = positions;
    this.#count = count;
  }

  /** A list that starts here; `add` its steps' ids as they finish, `at` the place of each. */
  static listAfter(outer: EarlierSteps): { add(ids: readonly string[]): void; at(): EarlierSteps } {
    const positions = new Map<string, number>();
    return {
      add: (ids) => {
        for (const id of ids) if (!positions.has(id)) positions.set(id, positions.size);
      },
      at: () => new EarlierSteps(outer, positions, positions.size),
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
    const position = this.#positions.get(id);
    return (position !== undefined && position < this.#count) || (this.#outer?.has(id) ?? false);
  }

  /** The ids, outermost list first, in file order. */
  *[Symbol.iterator](): Iterator<string> {
    if (this.#outer !== undefined) yield* this.#outer;
    let seen = 0;
    for (const id of this.#positions.keys()) {
      if (seen === this.#count) return;
      seen += 1;
      yield id;
    }
  }
}
