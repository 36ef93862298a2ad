/**
 * Which rows of a batch are done and which failed, one byte a row (0 not finished, 1 failed, 2 done)
 * instead of a set entry a row: a 100,000-row batch holds about 100 KiB here. A row done stays done;
 * a later failure line for it (none is written, but a file may say so) does not undo it.
 */
export class RowStates {
  #states = new Uint8Array(1024);
  #done = 0;
  #failed = 0;

  /** Rows done. */
  get doneCount(): number {
    return this.#done;
  }

  /** Rows whose latest attempt failed (and that are not done). */
  get failedCount(): number {
    return this.#failed;
  }

  /** Whether row `index` is done. */
  isDone(index: number): boolean {
    return this.#states[index] === DONE;
  }

  /** Records how row `index` finished. */
  set(index: number, state: "done" | "failed"): void {
    if (index >= this.#states.length) {
      const grown = new Uint8Array(Math.max(index + 1, this.#states.length * 2));
      grown.set(this.#states);
      this.#states = grown;
    }
    const before = this.#states[index]!;
    if (before === DONE) return;
    const after = state === "done" ? DONE : FAILED;
    if (before === FAILED) this.#failed--;
    if (after === DONE) this.#done++;
    else this.#failed++;
    this.#states[index] = after;
  }
}

const FAILED = 1;
const DONE = 2;
