import type { ToolCallChunk } from "@langchain/core/messages/tool";
import type { ModelInfo } from "../catalog/models.js";
import type { GatewayIds } from "../errors.js";
import { ArgumentsDelta } from "../gateway/arguments-delta.js";
import type { ChatChunk, ChatResponse, ToolCallDelta, Usage } from "../gateway/wire.js";
import { ToolCallAssembler, type AssembledToolCalls } from "./assemble-tool-calls.js";
import { plainObjectMaker } from "./plain-object.js";

/** A reply once it is complete, from a stream or a single response. */
export interface CompletedReply {
  /** The visible text (for an image model, the Markdown with the image). */
  readonly content: string;
  readonly toolCalls: AssembledToolCalls;
  readonly finishReason: string | null;
  /** From the final usage chunk (never summed); undefined when a stream had none. */
  readonly usage?: Usage;
  /** The model the gateway reported (a dated version behind the alias). */
  readonly servedModel: string;
  readonly responseId?: string;
  readonly ids: GatewayIds;
  /** True when the gateway replayed a stored answer for the call's idempotency key. */
  readonly replayed?: boolean;
}

/** Output the caller can be shown as it arrives. */
export type ReplyEvent =
  | { readonly type: "text"; readonly text: string }
  | { readonly type: "tool_call_chunks"; readonly chunks: ToolCallChunk[] };

// Classes, not literals, for what every chunk makes: see plain-object.ts.
class TextEvent {
  readonly type = "text";
  constructor(readonly text: string) {}
}

class ToolCallChunksEvent {
  readonly type = "tool_call_chunks";
  constructor(readonly chunks: ToolCallChunk[]) {}
}

// The tool-call delta an ArgumentsDelta stands for, `{ index, function: { arguments } }`, made
// without an allocation site (see plain-object.ts).
const FunctionArguments = plainObjectMaker(function (this: { arguments: string }, text: string) {
  this.arguments = text;
});
const ArgumentsFragment = plainObjectMaker(function (this: ToolCallDelta, delta: ArgumentsDelta) {
  this.index = delta.index;
  this.function = new FunctionArguments(delta.text);
});

/** The events a stream has shown and its consumer not yet taken, first in first out. Its storage
 * is reused once empty: a fresh array per chunk, or one emptied with `length = 0` (which drops its
 * storage), cost an allocation per chunk. */
export class EventQueue {
  readonly #items: (ReplyEvent | undefined)[] = [];
  #head = 0;
  #tail = 0;

  get length(): number {
    return this.#tail - this.#head;
  }

  push(event: ReplyEvent): void {
    this.#items[this.#tail++] = event;
  }

  /** The oldest event, or undefined when the queue is empty. */
  shift(): ReplyEvent | undefined {
    if (this.#head === this.#tail) return undefined;
    const event = this.#items[this.#head];
    this.#items[this.#head++] = undefined;
    if (this.#head === this.#tail) this.#head = this.#tail = 0;
    return event;
  }
}

/** What had arrived when a stream broke, for the error the caller gets. */
export interface PartialReply {
  readonly model: string;
  readonly content: string;
  readonly toolCalls: AssembledToolCalls;
}

/** Gathers one reply from stream chunks (or one response) and says what to show as it comes. */
export class ReplyCollector {
  readonly #model: ModelInfo;
  // Made at the first tool call: most replies have none, and it holds two Maps.
  #assembler: ToolCallAssembler | undefined;
  #content = "";
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

  /** Takes what `ChatStream.takeDelta` gave: a chunk, the text of one that only adds text, or a
   * fragment of a tool call's arguments. */
  pushDelta(delta: ChatChunk | string | ArgumentsDelta, events: { push(event: ReplyEvent): unknown }): void {
    if (typeof delta === "string") this.#addText(delta, events);
    else if (delta instanceof ArgumentsDelta) this.#addCalls([new ArgumentsFragment(delta)], events);
    else this.push(delta, events);
  }

  /** Takes one stream chunk; appends what to show now to `events`. */
  push(chunk: ChatChunk, events: { push(event: ReplyEvent): unknown }): void {
    this.#servedModel = chunk.model || this.#servedModel;
    this.#responseId ??= chunk.id;
    // Usage comes in the final chunk; a gateway that repeats it must not be counted twice.
    if (chunk.usage) this.#usage = chunk.usage;
    for (const choice of chunk.choices) {
      if (choice.index !== 0) continue;
      if (choice.finish_reason) this.#finishReason = choice.finish_reason;
      const text = choice.delta.content;
      if (text) this.#addText(text, events);
      const calls = choice.delta.tool_calls;
      if (calls?.length) this.#addCalls(calls, events);
    }
  }

  #addCalls(calls: readonly ToolCallDelta[], events: { push(event: ReplyEvent): unknown }): void {
    events.push(new ToolCallChunksEvent((this.#assembler ??= new ToolCallAssembler()).add(calls)));
    this.#shown = true;
  }

  #addText(text: string, events: { push(event: ReplyEvent): unknown }): void {
    if (text === "") return;
    this.#content += text;
    // An image model's reply is one Markdown image: decoded when complete, not shown in pieces.
    if (!this.#model.capabilities.imageGeneration) {
      events.push(new TextEvent(text));
      this.#shown = true;
    }
  }

  /** Takes a complete non-streamed response. */
  takeResponse(response: ChatResponse): void {
    this.#servedModel = response.model;
    this.#responseId = response.id;
    this.#usage = response.usage;
    const choice = response.choices.find((candidate) => candidate.index === 0) ?? response.choices[0];
    if (!choice) return;
    this.#finishReason = choice.finish_reason;
    this.#content = choice.message.content ?? "";
    if (choice.message.tool_calls?.length) (this.#assembler ??= new ToolCallAssembler()).addComplete(choice.message.tool_calls);
  }

  #toolCalls(): AssembledToolCalls {
    return this.#assembler?.finish() ?? { toolCalls: [], invalidToolCalls: [], extras: {} };
  }

  /** What arrived so far, for an error after the stream broke. */
  partial(): PartialReply {
    return { model: this.#servedModel, content: this.#content, toolCalls: this.#toolCalls() };
  }

  /** The complete reply, tool calls validated. */
  finish(ids: GatewayIds, replayed = false): CompletedReply {
    // Starts with a property, not a spread: see pieceMessage in stream-piece.ts.
    return {
      content: this.#content,
      toolCalls: this.#toolCalls(),
      finishReason: this.#finishReason,
      ...(this.#usage === undefined ? {} : { usage: this.#usage }),
      servedModel: this.#servedModel,
      ...(this.#responseId === undefined ? {} : { responseId: this.#responseId }),
      ids,
      ...(replayed ? { replayed } : {}),
    };
  }
}
