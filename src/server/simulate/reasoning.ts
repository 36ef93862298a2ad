import type { ModelInfo } from "../../catalog/models.js";
import type { ChatRequest } from "../../gateway/wire.js";
import type { Conversation } from "./conversation.js";
import { readFacts } from "./prompt-facts.js";
import type { SeededRandom } from "./seeded-random.js";

/** Output limit when the request sets none: 16K for plain models (the spec's non-stream bound). */
export const DEFAULT_OUTPUT_TOKENS = 16_384;
/** Output limit of reasoning and thinking models when the request sets none. */
export const DEFAULT_REASONING_OUTPUT_TOKENS = 65_536;

const HARD_WORDS =
  /\b(step by step|prove|proof|why|explain|analy[sz]e|plan|compare|design|debug|code|algorithm|reason|derive|optimi[sz]e|trade-?offs?)\b/i;
const TIER_SCALE: Record<ModelInfo["tier"], number> = { flagship: 1, standard: 0.75, economy: 0.5, unclassed: 1 };

/** The output limit a request gives the model: `max_completion_tokens`, else `max_tokens`, else the default. */
export function outputLimit(
  request: Pick<ChatRequest, "max_tokens" | "max_completion_tokens">,
  model: ModelInfo,
): number {
  const fallback = model.capabilities.reasoning ? DEFAULT_REASONING_OUTPUT_TOKENS : DEFAULT_OUTPUT_TOKENS;
  return request.max_completion_tokens ?? request.max_tokens ?? fallback;
}

/**
 * Hidden reasoning tokens the model spends before answering, from the prompt's complexity:
 * beta-5 series 200-1500 (less for mini and nano), gamma-2.5-pro 1200-3800, so that its budget
 * below the spec's 4096 often comes back empty. Zero for models that do not reason.
 */
export function reasoningTokens(
  conversation: Conversation,
  model: ModelInfo,
  random: SeededRandom,
  tools: boolean,
): number {
  if (!model.capabilities.reasoning) return 0;
  const facts = readFacts(conversation.userText);
  const words = conversation.userText.split(/\s+/).filter(Boolean).length;
  let complexity = Math.min(0.4, words / 250);
  if (facts.arithmetic.length > 0) complexity += 0.2;
  if (HARD_WORDS.test(conversation.userText)) complexity += 0.25;
  if (tools) complexity += 0.15;
  complexity = Math.min(1, complexity);
  const thinking = model.family === "gamma";
  let tokens = thinking
    ? 1200 + complexity * 2000 + random.int(0, 600)
    : (200 + complexity * 1000 + random.int(0, 300)) * TIER_SCALE[model.tier];
  // Answering from tool results needs less thought than planning the calls did.
  if (conversation.lastRole === "tool") tokens *= 0.5;
  return Math.round(tokens);
}
