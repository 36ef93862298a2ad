import type { MusicOperation } from "../../catalog/prices.js";
import { MAX_IMAGE_TOKENS } from "../../catalog/tokens.js";
import { formatYuan } from "../../cost/format-summary-table.js";
import { DEFAULT_VISION_MODEL } from "../../../tools/describe-image.js";
import { DEFAULT_IMAGE_MODEL } from "../../../tools/generate-image.js";
import { TOOL_REPLY_MAX_TOKENS } from "../../../tools/support/gateway-access.js";
import { DEFAULT_AUDIO_MODEL } from "../../../tools/understand-audio.js";
import type { ChatCallsPlan } from "./estimate-chat-calls.js";
import type { EstimateContext } from "./estimate-context.js";
import type { TextBound } from "./template-bound.js";

/** What one call of a tool that uses the gateway sends (the tools' own defaults, as a run creates them). */
type GatewayToolCall =
  | { readonly kind: "music"; readonly operation: MusicOperation }
  | {
      readonly kind: "chat";
      readonly model: string;
      readonly limit?: number;
      readonly mediaTokens: number;
      readonly note?: string;
    };

const CALLS: Readonly<Record<string, GatewayToolCall>> = {
  generate_image: { kind: "chat", model: DEFAULT_IMAGE_MODEL, mediaTokens: 0 },
  edit_image: { kind: "chat", model: DEFAULT_IMAGE_MODEL, mediaTokens: MAX_IMAGE_TOKENS },
  describe_image: {
    kind: "chat",
    model: DEFAULT_VISION_MODEL,
    limit: TOOL_REPLY_MAX_TOKENS,
    mediaTokens: MAX_IMAGE_TOKENS,
  },
  understand_audio: {
    kind: "chat",
    model: DEFAULT_AUDIO_MODEL,
    limit: TOOL_REPLY_MAX_TOKENS,
    mediaTokens: 0,
    note: "the audio's length is only known when the tool reads it",
  },
  compose_music: { kind: "music", operation: "generate" },
};

/** Tools that call the gateway, each with a short description of what one call costs. */
export const GATEWAY_TOOLS: Readonly<Record<string, { describe(context: EstimateContext): string }>> =
  Object.fromEntries(
    Object.entries(CALLS).map(([name, call]) => [
      name,
      { describe: (context: EstimateContext) => describeCall(call, context) },
    ]),
  );

/** One call of a gateway tool as a chat plan (with notes on what it cannot bound), or its music operation. */
export function gatewayToolPlan(
  name: string,
  prompt: TextBound,
): { kind: "music"; operation: MusicOperation } | { kind: "chat"; plan: ChatCallsPlan; notes: string[] } {
  const call = CALLS[name];
  if (call === undefined) throw new RangeError(`Not a gateway tool: ${name}`);
  if (call.kind === "music") return { kind: "music", operation: call.operation };
  return {
    kind: "chat",
    plan: { models: [call.model], prompt, mediaTokens: call.mediaTokens, limit: call.limit, turns: 1 },
    notes: call.note === undefined ? [] : [call.note],
  };
}

function describeCall(call: GatewayToolCall, context: EstimateContext): string {
  if (call.kind === "music") {
    const yuan = context.ledger.estimate({ kind: "music", operation: call.operation }).yuan;
    return `${yuan === undefined ? "unpriced" : formatYuan(yuan)} per call`;
  }
  const estimate = context.ledger.estimate({
    kind: "chat",
    request: { model: call.model, messages: [{ role: "user", content: "" }], max_tokens: call.limit ?? 1 },
  });
  if (estimate.yuan === undefined) return `one ${call.model} call, unpriced`;
  return estimate.kind === "image" ? `${formatYuan(estimate.yuan)} per call` : `one ${call.model} call`;
}
