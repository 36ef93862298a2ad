import { findModel } from "../../catalog/models.js";

/** Output token limit of a workflow's chat call that sets none (no `maxTokens`, no `defaults.maxTokens`). */
export const DEFAULT_OUTPUT_TOKENS = 4096;

/**
 * The output limit a chat call without one gets: DEFAULT_OUTPUT_TOKENS, or the model's catalogue
 * minimum when that is higher. Without a limit a call reserves its model's whole context window
 * against the budget, which no sensible budget admits.
 */
export function defaultOutputTokens(model: string): number {
  return Math.max(DEFAULT_OUTPUT_TOKENS, findModel(model)?.rules.minOutputTokens ?? 0);
}
