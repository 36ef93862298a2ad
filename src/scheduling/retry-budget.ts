import { ConfigError, SvcFlowError } from "../errors.js";

/**
 * A cap on attempts shared by every layer of one logical call (retries, then fallbacks to other
 * models), so nested retry loops add up to at most `maxAttempts` requests instead of multiplying.
 */
export class RetryBudget {
  /** The attempts this budget allows in total. */
  readonly maxAttempts: number;
  #used = 0;
  #lastError: unknown;

  constructor(maxAttempts = 8) {
    if (!Number.isInteger(maxAttempts) || maxAttempts < 1) {
      throw new ConfigError(`Expected maxAttempts to be an integer >= 1, got ${maxAttempts}.`);
    }
    this.maxAttempts = maxAttempts;
  }

  /** Attempts made so far. */
  get used(): number {
    return this.#used;
  }

  /** Attempts still allowed. */
  get remaining(): number {
    return this.maxAttempts - this.#used;
  }

  /** The last failure recorded, to rethrow when the budget runs out. */
  get lastError(): unknown {
    return this.#lastError;
  }

  /** Takes one attempt; false when none is left. */
  tryTake(): boolean {
    if (this.#used >= this.maxAttempts) return false;
    this.#used++;
    return true;
  }

  /** Records a failed attempt. */
  recordFailure(error: unknown): void {
    this.#lastError = error;
  }

  /** The error to throw when an attempt is refused: the last failure, or a budget error. */
  exhaustedError(): unknown {
    return (
      this.#lastError ??
      new SvcFlowError(
        "retry_budget_exhausted",
        `The retry budget of ${this.maxAttempts} attempts is spent. Raise it or fix the failing calls.`,
      )
    );
  }
}
