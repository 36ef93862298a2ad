/** Stable codes of the warnings ChatGateway emits. */
export type ChatWarningCode =
  /** `maxTokens` went out as `max_completion_tokens` (beta-5 series). */
  | "max_tokens_renamed"
  /** `temperature`/`top_p` were left out because the model rejects them (alpha-opus-4-8). */
  | "sampling_dropped"
  /** The output budget was raised to the model's minimum (gamma-2.5-pro: 4096). */
  | "budget_raised"
  /** The call moved to a fallback model. */
  | "fallback_used"
  /** A stream ended without a usage chunk, so its tokens are unknown. */
  | "usage_missing"
  /** The gateway's usage did not add up (total != prompt + completion). */
  | "usage_mismatch";

/** A change ChatGateway made to a request, or a doubt about a reply; never thrown, always reported. */
export class ChatWarning extends Error {
  readonly code: ChatWarningCode;
  /** The model the warning is about. */
  readonly model: string;

  constructor(code: ChatWarningCode, model: string, message: string) {
    super(message);
    this.name = new.target.name;
    this.code = code;
    this.model = model;
  }
}

/** A per-model parameter rule changed what the caller asked for (renamed, dropped or raised). */
export class ParameterWarning extends ChatWarning {}

/** Receives warnings; the default hands each to `process.emitWarning`. */
export type WarningHandler = (warning: ChatWarning) => void;

/** Hands each distinct warning (code and model) to the handler once, for one model instance. */
export class WarningOnce {
  // Made on the first warning: most calls have none.
  #seen: Set<string> | undefined;
  readonly #handler: WarningHandler;

  constructor(handler: WarningHandler = (warning) => process.emitWarning(warning)) {
    this.#handler = handler;
  }

  /** Reports the warning unless one with the same code and model was reported before. */
  emit(warning: ChatWarning): void {
    const key = `${warning.code}\u0000${warning.model}`;
    this.#seen ??= new Set();
    if (this.#seen.has(key)) return;
    this.#seen.add(key);
    this.#handler(warning);
  }
}
