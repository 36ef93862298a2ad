import { countTextTokens } from "../../catalog/tokens.js";

/** Visible output a reasoning model needs after its reasoning; below it the reply comes back empty. */
export const MIN_VISIBLE_TOKENS = 16;

/** Text cut to the limits, with its finish reason and token counts. */
export interface LimitedText {
  readonly content: string;
  readonly finishReason: "stop" | "length";
  /** Visible tokens plus reasoning tokens. */
  readonly completionTokens: number;
  readonly reasoningTokens: number;
}

/**
 * Applies stop sequences (cut before the first one found) and the output limit, which reasoning
 * spends first: when it leaves less than MIN_VISIBLE_TOKENS, the whole budget went on reasoning and
 * the reply is empty with finish "length", the failure the spec warns about.
 */
export function applyOutputLimit(
  text: string,
  options: { limit: number; reasoningTokens: number; stop?: string | readonly string[] | null },
): LimitedText {
  const { limit } = options;
  if (options.reasoningTokens > 0 && limit < options.reasoningTokens + MIN_VISIBLE_TOKENS) {
    return { content: "", finishReason: "length", completionTokens: limit, reasoningTokens: limit };
  }
  const reasoning = options.reasoningTokens;
  const stopped = cutAtStop(text, options.stop);
  const budget = limit - reasoning;
  const tokens = countTextTokens(stopped);
  if (tokens <= budget) {
    return { content: stopped, finishReason: "stop", completionTokens: tokens + reasoning, reasoningTokens: reasoning };
  }
  const content = truncateToTokens(stopped, budget);
  return {
    content,
    finishReason: "length",
    completionTokens: countTextTokens(content) + reasoning,
    reasoningTokens: reasoning,
  };
}

/** The text up to (not including) the earliest stop sequence; the text itself when none occurs. */
export function cutAtStop(text: string, stop: string | readonly string[] | null | undefined): string {
  const sequences = (typeof stop === "string" ? [stop] : (stop ?? [])).filter((sequence) => sequence.length > 0);
  let end = text.length;
  for (const sequence of sequences) {
    const index = text.indexOf(sequence);
    if (index >= 0 && index < end) end = index;
  }
  return text.slice(0, end);
}

/** The longest prefix of the text with at most `budget` tokens, never splitting a surrogate pair. */
export function truncateToTokens(text: string, budget: number): string {
  if (budget <= 0) return "";
  // Binary search on the prefix length; tokens of a prefix grow with its length.
  let low = 0;
  let high = Math.min(text.length, budget * 16);
  while (low < high) {
    const middle = Math.ceil((low + high) / 2);
    if (countTextTokens(text.slice(0, middle)) <= budget) low = middle;
    else high = middle - 1;
  }
  let end = low;
  const code = text.charCodeAt(end - 1);
  if (end > 0 && code >= 0xd800 && code <= 0xdbff) end--;
  return text.slice(0, end);
}
