import type { ModelInfo } from "../catalog/models.js";
import type { GatewayIds } from "../errors.js";
import type { ChatChunk, ChatResponse, ToolCall, Usage } from "../gateway/wire.js";
import { ToolCallAssembler, type AssembledToolCalls, type ToolCallFragment } from "./assemble-tool-calls.js";

/** A reply once it is complete, from a stream or a single response. */
export interface CompletedReply {
  /** The visible text (for an image model, the Markdown with the image). */
  readonly content: string;
  /** The model's reasoning, when the gateway sends it (`reasoning_content`); "" otherwise. */
  readonly reasoning: string;
  readonly toolCalls: AssembledToolCalls;
  readonly finishReason: string | null;
  /** From the final usage chunk (never summed); undefined when a stream had none. */
  readonly usage?: Usage;
  /** The model the gateway reported (a dated version behind the alias). */
  readonly servedModel: string;
  readonly responseId?: string;
  readonly ids: GatewayIds;
  /** True when the gateway replayed a stored answer for the call's idempotency key. */
  readonly replayed: boolean;
}

/** Output the caller can be shown as it arrives. */
export type ReplyEvent =
  | { readonly type: "text"; readonly text: string }
  | { readonly type: "reasoning"; readonly text: string }
  | ({ readonly type: "tool-call" } & ToolCallFragment);

/** What had arrived when a stream broke, for the error the caller gets. */
export interface PartialReply {
  readonly model: string;
  readonly content: string;
  readonly toolCalls: AssembledToolCalls;
}

/** Gathers one reply from stream chunks and says what to show as it comes. */
export class ReplyCollector {
  readonly #model: ModelInfo;
  readonly #assembler = new ToolCallAssembler();
  #content = "";
  #reasoning = "";
  #finishReason: string | null = null;
  #usage: Usage | undefined;
  #servedModel: string;
  #responseId: string | undefined;
  #shown = false;

  constructor(model: ModelInfo) {
    this.#model = model;
    this.#servedModel = model.id;
  }

  /** True once text or a tool call has been shown: from then on the call may not fall back. */
  get started(): boolean {
    return this.#shown;
  }

  /** The id of the response, once a chunk has carried one. */
  get responseId(): string | undefined {
    return this.#responseId;
  }

  /** Takes one stream chunk; appends what to show now to `events`. */
  push(chunk: ChatChunk, events: ReplyEvent[]): void {
    this.#servedModel = chunk.model || this.#servedModel;
    this.#responseId ??= chunk.id || undefined;
    // Usage comes in the final chunk; a gateway that repeats it must not be counted twice.
    if (chunk.usage) this.#usage = chunk.usage;
    for (const choice of chunk.choices) {
      if (choice.index !== 0) continue;
      if (choice.finish_reason) this.#finishReason = choice.finish_reason;
      const reasoning = (choice.delta as { reasoning_content?: unknown }).reasoning_content;
      if (typeof reasoning === "string" && reasoning !== "") {
        this.#reasoning += reasoning;
        events.push({ type: "reasoning", text: reasoning });
      }
      const text = choice.delta.content;
      if (text) this.#addText(text, events);
      const calls = choice.delta.tool_calls;
      if (calls?.length) {
        for (const fragment of this.#assembler.add(calls)) events.push({ type: "tool-call", ...fragment });
        this.#shown = true;
      }
    }
  }

  #addText(text: string, events: ReplyEvent[]): void {
    this.#content += text;
    // An image model's reply is one Markdown image: decoded when complete, not shown in pieces.
    if (!this.#model.capabilities.imageGeneration) {
      events.push({ type: "text", text });
      this.#shown = true;
    }
  }

  /** What arrived so far, for an error after the stream broke. */
  partial(): PartialReply {
    return { model: this.#servedModel, content: this.#content, toolCalls: this.#assembler.finish() };
  }

  /** The complete reply, tool calls validated. */
  finish(ids: GatewayIds, replayed: boolean): CompletedReply {
    return {
      content: this.#content,
      reasoning: this.#reasoning,
      toolCalls: this.#assembler.finish(),
      finishReason: this.#finishReason,
      ...(this.#usage === undefined ? {} : { usage: this.#usage }),
      servedModel: this.#servedModel,
      ...(this.#responseId === undefined ? {} : { responseId: this.#responseId }),
      ids,
      replayed,
    };
  }
}

/** The complete reply of a non-streamed response (its first choice). */
export function replyFromResponse(
  response: ChatResponse,
  model: ModelInfo,
  ids: GatewayIds,
  replayed: boolean,
): CompletedReply {
  const choice = response.choices.find((candidate) => candidate.index === 0) ?? response.choices[0];
  const message = choice?.message;
  const reasoning = (message as { reasoning_content?: unknown } | undefined)?.reasoning_content;
  return {
    content: message?.content ?? "",
    reasoning: typeof reasoning === "string" ? reasoning : "",
    toolCalls: completeToolCalls(message?.tool_calls),
    finishReason: choice === undefined ? null : choice.finish_reason,
    ...(response.usage === undefined ? {} : { usage: response.usage }),
    servedModel: response.model || model.id,
    ...(response.id === undefined ? {} : { responseId: response.id }),
    ids,
    replayed,
  };
}

function completeToolCalls(calls: readonly ToolCall[] | undefined): AssembledToolCalls {
  // Most replies carry no tool calls: no assembler to build for them.
  if (!calls?.length) return { toolCalls: [], invalidToolCalls: [], extras: {} };
  const assembler = new ToolCallAssembler();
  assembler.addComplete(calls);
  return assembler.finish();
}
