import { CallbackManager, type CallbackManagerForLLMRun } from "@langchain/core/callbacks/manager";
import type { BaseLanguageModelInput, StructuredOutputMethodOptions } from "@langchain/core/language_models/base";
import {
  BaseChatModel,
  type BaseChatModelCallOptions,
  type BindToolsInput,
} from "@langchain/core/language_models/chat_models";
import type { ModelProfile } from "@langchain/core/language_models/profile";
import type { AIMessageChunk, BaseMessage } from "@langchain/core/messages";
import { ChatGenerationChunk, type ChatResult } from "@langchain/core/outputs";
import type { Runnable, RunnableConfig } from "@langchain/core/runnables";
import type { IterableReadableStream } from "@langchain/core/utils/stream";
import type { SerializableSchema } from "@langchain/core/utils/standard_schema";
import type { InteropZodType } from "@langchain/core/utils/types";
import { ParameterError } from "../errors.js";
import { chunksOf, type PullSource } from "../gateway/chat-stream.js";
import { buildChatInput, type ChatCallFields } from "./build-chat-input.js";
import { toAIMessage } from "./build-reply-message.js";
import { callDeadline, type CallDeadline } from "./call-deadline.js";
import { DirectStream } from "./direct-stream.js";
import { resolveChatGatewayOptions, type ChatGatewayOptions, type ResolvedChatGatewayOptions } from "./chat-gateway-options.js";
import type { CompletedReply } from "./collect-reply.js";
import { toWireTool } from "./convert-tools.js";
import { modelProfile } from "./model-profile.js";
import { openChatCall } from "./open-chat-call.js";
import type { OpenReply } from "./run-attempt.js";
import { splitCallOptions } from "./split-call-options.js";
import { generationChunk, pieceMessage, replyPieces, type StreamPiece } from "./stream-piece.js";
import { structuredOutput } from "./structured-output.js";

/** A schema for structured output: zod 4, zod 3, a Standard JSON Schema, or JSON Schema. */
type OutputSchema<T> = InteropZodType<T> | SerializableSchema<T> | Record<string, any>;

/** Per-call options: LangChain's, plus the tool and format fields `bindTools` and agents set. */
export interface ChatGatewayCallOptions extends BaseChatModelCallOptions, Omit<ChatCallFields, "stop" | "tool_choice"> {
  /** Identifies this call for the gateway's idempotency store: each model of the fallback chain
   * sends `<key>:<model>`, the same on every retry, so a retry after a lost answer is replayed,
   * not billed again. Derive it from what identifies the call (run, step, item, call number). */
  idempotencyKey?: string;
}

/** The gateway's chat models as a LangChain chat model: invoke, stream, batch, tools, structured
 * output, multimodal input, per-model rules and fallbacks. */
export class ChatGateway extends BaseChatModel<ChatGatewayCallOptions, AIMessageChunk> {
  static override lc_name(): string {
    return "ChatGateway";
  }

  override get lc_secrets(): Record<string, string> {
    return { apiKey: "SVC_API_KEY" };
  }

  readonly model: string;
  readonly fallbacks: readonly string[];
  readonly temperature?: number;
  readonly topP?: number;
  readonly maxTokens?: number;
  readonly stop?: string[];
  readonly #resolved: ResolvedChatGatewayOptions;

  constructor(options: ChatGatewayOptions) {
    // Retries, concurrency and the key are ours; LangChain's own caller must not retry again.
    const { apiKey: _apiKey, maxRetries: _retries, maxConcurrency: _concurrency, ...langchain } = options;
    super({ ...langchain, maxRetries: 0 });
    this.#resolved = resolveChatGatewayOptions(options);
    this.model = options.model;
    this.fallbacks = this.#resolved.chain.slice(1).map((info) => info.id);
    this.temperature = options.temperature;
    this.topP = options.topP;
    this.maxTokens = options.maxTokens;
    this.stop = options.stop;
  }

  _llmType(): string {
    return "svc-gateway";
  }

  override get profile(): ModelProfile {
    return modelProfile(this.#resolved.chain[0]!);
  }

  override invocationParams(options?: this["ParsedCallOptions"]): Record<string, unknown> {
    return {
      model: this.model,
      fallbacks: this.fallbacks,
      temperature: this.temperature,
      top_p: this.topP,
      max_tokens: this.maxTokens,
      stop: options?.stop ?? this.stop,
      tool_choice: options?.tool_choice,
    };
  }

  override bindTools(
    tools: BindToolsInput[],
    kwargs?: Partial<ChatGatewayCallOptions>,
  ): Runnable<BaseLanguageModelInput, AIMessageChunk, ChatGatewayCallOptions> {
    // Converted here, so a schema the wire cannot carry fails at bind time, not on first call.
    return this.withConfig({ tools: tools.map(toWireTool), ...kwargs });
  }

  override withStructuredOutput<RunOutput extends Record<string, any> = Record<string, any>>(
    outputSchema: OutputSchema<RunOutput>,
    config?: StructuredOutputMethodOptions<false>,
  ): Runnable<BaseLanguageModelInput, RunOutput, ChatGatewayCallOptions>;
  override withStructuredOutput<RunOutput extends Record<string, any> = Record<string, any>>(
    outputSchema: OutputSchema<RunOutput>,
    config?: StructuredOutputMethodOptions<true>,
  ): Runnable<BaseLanguageModelInput, { raw: BaseMessage; parsed: RunOutput }, ChatGatewayCallOptions>;
  override withStructuredOutput<RunOutput extends Record<string, any> = Record<string, any>>(
    outputSchema: OutputSchema<RunOutput>,
    config?: StructuredOutputMethodOptions<boolean>,
  ):
    | Runnable<BaseLanguageModelInput, RunOutput, ChatGatewayCallOptions>
    | Runnable<BaseLanguageModelInput, { raw: BaseMessage; parsed: RunOutput }, ChatGatewayCallOptions> {
    if (!this.#resolved.chain[0]!.capabilities.tools && (config?.method ?? "functionCalling") === "functionCalling") {
      throw new ParameterError(`${this.model} does not call tools, so it cannot give structured output. Use a text model.`);
    }
    // The call options (idempotencyKey, signal) reach the model through the binding.
    return structuredOutput<RunOutput>(this, outputSchema, config) as Runnable<BaseLanguageModelInput, RunOutput, ChatGatewayCallOptions>;
  }

  override async _generate(
    messages: BaseMessage[],
    options: this["ParsedCallOptions"],
    runManager?: CallbackManagerForLLMRun,
  ): Promise<ChatResult> {
    const deadline = callDeadline(this.model, options.signal, this.#resolved.timeoutMs);
    try {
      const { open, origin } = await this.#open(messages, options, false, deadline);
      const reply = open.complete ?? (await this.#readReply(open, runManager));
      const message = toAIMessage(reply, origin);
      const usage = message.usage_metadata;
      const llmOutput = usage && {
        tokenUsage: { promptTokens: usage.input_tokens, completionTokens: usage.output_tokens, totalTokens: usage.total_tokens },
      };
      // `message.text` runs LangChain's content-block translators; a string is its own text.
      const text = typeof message.content === "string" ? message.content : message.text;
      return { generations: [{ text, message, generationInfo: { finish_reason: reply.finishReason } }], llmOutput };
    } catch (error) {
      throw deadline.explain(error);
    }
  }

  // LangChain's invoke, stream and streaming loop serve callback handlers and tracers: they
  // configure a callback manager, re-enter AsyncLocalStorage per chunk and fold every chunk for
  // handleLLMEnd. With none attached nobody sees that work, and it costs more than the call's own
  // HTTP, so these three take a direct path then (same messages and chunks) and LangChain's otherwise.

  override async invoke(input: BaseLanguageModelInput, options?: ChatGatewayCallOptions): Promise<AIMessageChunk> {
    const [config, callOptions] = splitCallOptions<this["ParsedCallOptions"]>(options);
    if (!this.#unobserved(config, callOptions)) return super.invoke(input, options);
    const messages = BaseChatModel._convertInputToPromptValue(input).toChatMessages();
    const { generations, llmOutput } = await this._generate(messages, callOptions);
    const { message, generationInfo } = generations[0]!;
    // Object.assign, not spreads: see pieceMessage (stream-piece.ts).
    message.response_metadata = Object.assign({}, llmOutput, generationInfo, message.response_metadata);
    return message as AIMessageChunk;
  }

  override async stream(input: BaseLanguageModelInput, options?: Partial<ChatGatewayCallOptions>): Promise<IterableReadableStream<AIMessageChunk>> {
    const [config, callOptions] = splitCallOptions<this["ParsedCallOptions"]>(options);
    if (this.disableStreaming || !this.#unobserved(config, callOptions)) return super.stream(input, options);
    const messages = BaseChatModel._convertInputToPromptValue(input).toChatMessages();
    return DirectStream.of(await this.#pieces(messages, callOptions), (piece) => pieceMessage(piece, callOptions.signal));
  }

  override async *_streamIterator(input: BaseLanguageModelInput, options?: Partial<ChatGatewayCallOptions>): AsyncGenerator<AIMessageChunk> {
    const [config, callOptions] = splitCallOptions<this["ParsedCallOptions"]>(options);
    if (this.disableStreaming || !this.#unobserved(config, callOptions)) yield* super._streamIterator(input, options);
    else {
      const messages = BaseChatModel._convertInputToPromptValue(input).toChatMessages();
      for await (const piece of chunksOf(await this.#pieces(messages, callOptions))) yield pieceMessage(piece, callOptions.signal);
      callOptions.signal?.throwIfAborted();
    }
  }

  override async *_streamResponseChunks(
    messages: BaseMessage[],
    options: this["ParsedCallOptions"],
    runManager?: CallbackManagerForLLMRun,
  ): AsyncGenerator<ChatGenerationChunk> {
    for await (const piece of chunksOf(await this.#pieces(messages, options))) {
      const chunk = generationChunk(piece);
      if (piece.type === "text") await runManager?.handleLLMNewToken(piece.text, undefined, undefined, undefined, undefined, { chunk });
      yield chunk;
    }
  }

  /** Closes the connections of the model's own client (a shared `client` is left open). */
  async close(): Promise<void> {
    if (this.#resolved.ownsClient) await this.#resolved.client.close();
  }

  /** True when no callback handler, tracer, cache or v1 output format needs LangChain's own path. */
  #unobserved(config: RunnableConfig, callOptions: this["ParsedCallOptions"]): boolean {
    if (this.cache !== undefined || (callOptions.outputVersion ?? this.outputVersion) === "v1") return false;
    const observers = CallbackManager.configure(config.callbacks, this.callbacks, undefined, undefined, undefined, undefined, { verbose: this.verbose });
    return observers === undefined;
  }

  /** A streamed call's events, each made when it is taken, then the final piece with the
   * metadata, usage and finish reason. Resolves once the call has shown its first output. */
  async #pieces(messages: BaseMessage[], options: this["ParsedCallOptions"]): Promise<PullSource<StreamPiece>> {
    const deadline = callDeadline(this.model, options.signal, this.#resolved.timeoutMs);
    const { open, origin } = await this.#open(messages, options, true, deadline).catch((error: unknown) => {
      throw deadline.explain(error);
    });
    return replyPieces(open, origin, deadline);
  }

  /** Reads a reply that streams (an output budget above 16K) to its end, passing its text on. */
  async #readReply(open: OpenReply, runManager?: CallbackManagerForLLMRun): Promise<CompletedReply> {
    try {
      for (;;) {
        const event = open.take();
        if (event === undefined) {
          const reply = await open.read();
          if (reply !== undefined) return reply;
        } else if (event.type === "text") await runManager?.handleLLMNewToken(event.text);
      }
    } finally {
      await open.cancel();
    }
  }

  #open(messages: BaseMessage[], options: this["ParsedCallOptions"], stream: boolean, deadline: CallDeadline) {
    const settings = { temperature: this.temperature, topP: this.topP, maxTokens: this.maxTokens, stop: this.stop };
    return openChatCall(this.#resolved, buildChatInput(messages, options, settings, stream), deadline, options.idempotencyKey);
  }
}
