import type { Dialect, DialectError, GatewayFailure, ReplyParts } from "./dialect.js";
import { replyPieces, wireToolCall, wireUsage, type ReplyPiece } from "./reply-pieces.js";

// Azure OpenAI: the prompt-annotation first chunk with empty id/object/model and no choices
// (Azure/azure-sdk-for-go#21086, openai/openai-python#1266), content_filter_results on every
// choice, and with the asynchronous filter a closing annotation chunk whose choice has no
// `delta` (openai/openai-python#1677, langchain-ai/langchain#18977, microsoft/autogen#6465).
// Errors: `{"error": {"code": "<status or name>", "message": ...}}` with no type.

const SAFE = { filtered: false, severity: "safe" };
const FILTER_RESULTS = { hate: SAFE, self_harm: SAFE, sexual: SAFE, violence: SAFE };
const FINGERPRINT = "fp_a7d06e42a7";

function deltaOf(piece: ReplyPiece): Record<string, unknown> {
  switch (piece.kind) {
    case "role":
      return { content: "", refusal: null, role: "assistant" };
    case "reasoning":
      return {};
    case "content":
      return { content: piece.text };
    case "tool-start":
      return {
        tool_calls: [
          {
            ...piece.call.extra,
            function: { arguments: "", name: piece.call.name },
            id: piece.call.id,
            index: piece.index,
            type: "function",
          },
        ],
      };
    case "tool-arguments":
      return { tool_calls: [{ function: { arguments: piece.text }, index: piece.index }] };
    case "finish":
      return {};
  }
}

function errorOf(failure: GatewayFailure): DialectError {
  if (failure.modelNotAllowed !== undefined || failure.code === "model_not_found") {
    return {
      status: 404,
      body: {
        error: {
          code: "DeploymentNotFound",
          message: `The API deployment for this resource does not exist or this key may not use it (${failure.message})`,
        },
      },
    };
  }
  if (failure.code === "rate_limit_exceeded") {
    // Azure's own words (microsoft/PubSec-Info-Assistant#479, alex-wolf-ps/dbchatprov2#2): a rate
    // limit whose message links to the quota increase form.
    const seconds = Math.max(1, Math.ceil(failure.retryAfterS ?? 1));
    const message =
      "Requests to the ChatCompletions_Create Operation under Azure OpenAI API version 2024-10-21 have exceeded " +
      `token rate limit of your current OpenAI S0 pricing tier. Please retry after ${seconds} seconds. Please go ` +
      "here: https://aka.ms/oai/quotaincrease if you would like to further increase the default rate limit.";
    return { status: 429, body: { error: { code: "429", message } } };
  }
  if (failure.code === "insufficient_quota") {
    return { status: 429, body: { error: { code: "429", message: `Insufficient quota: ${failure.message}` } } };
  }
  return { status: failure.status, body: { error: { code: String(failure.status), message: failure.message } } };
}

/**
 * Azure OpenAI. Streams open with a prompt-annotation chunk (`"id": ""`, `"object": ""`,
 * `"model": ""`, `"created": 0`, `"choices": []`), carry `content_filter_results` on each choice,
 * and after the finish send an annotation chunk whose choice has no `delta`; usage comes in a
 * last chunk without choices. Errors name their code as a string (`"429"`) and have no type.
 */
export const azureDialect: Dialect = {
  name: "azure",
  stream(parts, includeUsage) {
    const annotation = {
      choices: [],
      created: 0,
      id: "",
      model: "",
      object: "",
      prompt_filter_results: [{ prompt_index: 0, content_filter_results: FILTER_RESULTS }],
    };
    const frames = [{ data: JSON.stringify(annotation) }];
    const head = {
      created: parts.created,
      id: parts.id,
      model: parts.model,
      object: "chat.completion.chunk",
      system_fingerprint: FINGERPRINT,
    };
    const pieces = replyPieces(parts).filter((piece) => piece.kind !== "reasoning");
    for (const piece of pieces) {
      const filters = piece.kind === "role" || piece.kind === "finish" ? {} : FILTER_RESULTS;
      const choice = {
        content_filter_results: filters,
        delta: deltaOf(piece),
        finish_reason: piece.kind === "finish" ? piece.reason : null,
        index: 0,
        logprobs: null,
      };
      frames.push({ data: JSON.stringify({ choices: [choice], ...head, ...(includeUsage ? { usage: null } : {}) }) });
    }
    const finishIndex = frames.length - 1;
    const offsets = { check_offset: 0, start_offset: 0, end_offset: parts.content.length };
    frames.push({
      data: JSON.stringify({
        choices: [
          { content_filter_offsets: offsets, content_filter_results: FILTER_RESULTS, finish_reason: null, index: 0 },
        ],
        created: 0,
        id: "",
        model: "",
        object: "",
      }),
    });
    if (includeUsage) frames.push({ data: JSON.stringify({ choices: [], ...head, usage: wireUsage(parts) }) });
    return { frames, finishIndex, end: "done" };
  },
  json(parts: ReplyParts) {
    const hasTools = parts.toolCalls.length > 0;
    const message = {
      content: hasTools && parts.content === "" ? null : parts.content,
      refusal: null,
      role: "assistant",
      ...(hasTools ? { tool_calls: parts.toolCalls.map(wireToolCall) } : {}),
    };
    return {
      choices: [
        {
          content_filter_results: FILTER_RESULTS,
          finish_reason: parts.finishReason,
          index: 0,
          logprobs: null,
          message,
        },
      ],
      created: parts.created,
      id: parts.id,
      model: parts.model,
      object: "chat.completion",
      prompt_filter_results: [{ prompt_index: 0, content_filter_results: FILTER_RESULTS }],
      system_fingerprint: FINGERPRINT,
      usage: {
        ...wireUsage(parts),
        completion_tokens_details: { reasoning_tokens: parts.usage.reasoningTokens },
        prompt_tokens_details: { cached_tokens: 0 },
      },
    };
  },
  error: errorOf,
  streamError() {
    return undefined;
  },
};
