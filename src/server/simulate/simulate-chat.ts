import type { ModelInfo } from "../../catalog/models.js";
import { countTextTokens } from "../../catalog/tokens.js";
import type { ChatRequest } from "../../gateway/wire.js";
import { answerFromToolResults } from "./answer-tool-results.js";
import { applyOutputLimit } from "./apply-output-limit.js";
import { composeText } from "./compose-text.js";
import { readConversation, type Conversation } from "./conversation.js";
import { describeParts } from "./describe-parts.js";
import { imageReply } from "./image-reply.js";
import { jsonReply } from "./json-reply.js";
import { makeToolCalls } from "./make-tool-calls.js";
import { readMediaFacts } from "./media-facts.js";
import { planToolCalls } from "./plan-tool-calls.js";
import { outputLimit, reasoningTokens } from "./reasoning.js";
import { hashText, seededRandom, type SeededRandom } from "./seeded-random.js";
import type { SimulateContext, SimulatedReply } from "./simulated-reply.js";

const MEDIA_QUESTION =
  /\b(describe|description|what|which|colou?rs?|size|dimensions?|how long|duration|length|image|picture|photo|audio|clip|sound|video|listen|hear|see|look|transcribe|pitch|loud\w*)\b/i;

/**
 * A simulated model's reply to a validated chat request: deterministic for the same request and
 * seed, shaped by the prompt, honouring tools, `response_format`, `stop` and the output limit,
 * with hidden reasoning for reasoning models and real media decoding for vision, audio and video.
 */
export async function simulateChat(
  request: ChatRequest,
  model: ModelInfo,
  context: SimulateContext,
): Promise<SimulatedReply> {
  const conversation = readConversation(request);
  if (model.capabilities.imageGeneration) return imageReply(conversation, context);
  const random = seededRandom(
    hashText(
      context.seed,
      model.id,
      conversation.systemText,
      conversation.userText,
      conversation.lastRole,
      conversation.toolResults.length,
    ),
  );
  const limit = outputLimit(request, model);
  const reasoning = reasoningTokens(conversation, model, random, (request.tools?.length ?? 0) > 0);
  const planned = model.capabilities.tools ? planToolCalls(request, conversation) : [];
  if (planned.length > 0) {
    // Arguments about media (a structured answer's caption) are filled from what the media showed.
    const media = conversation.media.length > 0 ? await readMediaFacts(conversation.media, context.fetchImage) : [];
    const calls = makeToolCalls(planned, conversation, model, random, media);
    const callTokens = calls.reduce(
      (sum, call) => sum + countTextTokens(call.name) + countTextTokens(call.arguments),
      0,
    );
    if (reasoning + callTokens <= limit) {
      return {
        content: "",
        toolCalls: calls,
        finishReason: "tool_calls",
        completionTokens: reasoning + callTokens,
        reasoningTokens: reasoning,
        images: 0,
      };
    }
    // The budget ran out before the calls were written out: nothing usable comes back.
    return {
      content: "",
      toolCalls: [],
      finishReason: "length",
      completionTokens: limit,
      reasoningTokens: Math.min(reasoning, limit),
      images: 0,
    };
  }
  const text = await replyText(request, conversation, context, random);
  const limited = applyOutputLimit(text, { limit, reasoningTokens: reasoning, stop: request.stop });
  const { content, finishReason, completionTokens, reasoningTokens: reasoned } = limited;
  return { content, finishReason, completionTokens, reasoningTokens: reasoned, toolCalls: [], images: 0 };
}

async function replyText(
  request: ChatRequest,
  conversation: Conversation,
  context: SimulateContext,
  random: SeededRandom,
): Promise<string> {
  // Structured output about media is filled from what the media showed, so it is read first.
  const wantsJson = request.response_format !== undefined || /\bjson\b/i.test(conversation.userText);
  const media =
    wantsJson && conversation.media.length > 0 ? await readMediaFacts(conversation.media, context.fetchImage) : [];
  const json = jsonReply(request, conversation, random, media);
  if (json !== undefined) return json;
  if (conversation.lastRole === "tool" && conversation.toolResults.length > 0)
    return answerFromToolResults(conversation, random);
  const mediaInView =
    conversation.media.length > 0 && (conversation.mediaIsNew || MEDIA_QUESTION.test(conversation.userText));
  if (!mediaInView) return composeText(conversation, random);
  const descriptions = (await describeParts(conversation.media, context.fetchImage)).join(" ");
  if (MEDIA_QUESTION.test(conversation.userText) || conversation.userText.trim() === "") return descriptions;
  return `${descriptions} ${composeText(conversation, random)}`;
}
