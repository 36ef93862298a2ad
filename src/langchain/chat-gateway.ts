import { randomUUID } from "node:crypto";
import { CallbackManager, type CallbackManagerForLLMRun } from "@langchain/core/callbacks/manager";
import type { BaseLanguageModelInput, StructuredOutputMethodOptions } from "@langchain/core/language_models/base";
import {
  BaseChatModel,
  type BaseChatModelCallOptions,
  type BindToolsInput,
  type LangSmithParams,
} from "@langchain/core/language_models/chat_models";
import type { ModelProfile } from "@langchain/core/language_models/profile";
import type { AIMessageChunk, BaseMessage, MessageContent } from "@langchain/core/messages";
import { ChatGenerationChunk, type ChatResult } from "@langchain/core/outputs";
import { ensureConfig, type Runnable } from "@langchain/core/runnables";
import { IterableReadableStream } from "@langchain/core/utils/stream";
import type { SerializableSchema } from "@langchain/core/utils/standard_schema";
import type { InteropZodType } from "@langchain/core/utils/types";
import { countTextTokens } from "../catalog/tokens.js";
import { callChat, type ChatCall, type ChatCallOptions } from "../chat/call-chat.js";
import type { ChatEventStream } from "../chat/chat-reply.js";
import type { ChatRequest, ToolChoice } from "../gateway/wire.js";
import { ParameterError } from "../errors.js";
import { applyModelRules, type RuleOutcome } from "../chat/apply-model-rules.js";
import { toAIMessage, toEventChunk, toFinalChunk } from "./build-reply-message.js";
import {
  resolveChatGatewayOptions,
  type ChatGatewayOptions,
  type ResolvedChatGatewayOptions,
} from "./chat-gateway-options.js";
import { toWireContent } from "./convert-content.js";
import { toWireMessages } from "./convert-messages.js";
import { toJsonSchemaFormat, toWireTool, toWireToolChoice } from "./convert-tools.js";
import { lsParams } from "./ls-params.js";
import { modelProfile } from "./model-profile.js";
import { structuredOutput } from "./structured-output.js";

/** A schema for structured output: zod 4, zod 3, a Standard JSON Schema, or JSON Schema. */
type OutputSchema<T> = InteropZodType<T> | SerializableSchema<T> | Record<string, any>;

/** Per-call options: LangChain's, plus the tool and format fields `bindTools` and agents set. */
export interface ChatGatewayCallOptions extends BaseChatModelCallOptions {
  tools?: BindToolsInput[];
  parallel_tool_calls?: boolean;
  /** A JSON Schema format may carry a zod schema (agents pass one); it is converted here. */
  response_format?: ChatRequest["response_format"] & { json_schema?: { schema?: unknown } };
  /** Identifies this call for the gateway's idempotency store: each model of the fallback chain
   * sends `<key>:<model>`, the same on every retry, so a retry after a lost answer is replayed,
   * not billed again. Derive it from what identifies the call (run, step, item, call number). */
  idempotencyKey?: string;
}

/** The gateway's chat models as a LangChain chat model: invoke, stream, batch, tools, structured
 * output, multimodal input, per-model rules and fallbacks, all through the chat core (`callChat`). */
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
  /** `invoke` streams the reply, so callback handlers get each token (`handleLLMNewToken`). */
  readonly streaming: boolean;
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
    this.streaming = options.streaming ?? false;
  }

  _llmType(): string {
    return "svc-gateway";
  }

  override get profile(): ModelProfile {
    return modelProfile(this.#resolved.chain[0]!);
  }

  /** LangSmith's `ls_*` settings, as they go to the model (a dropped temperature is not reported). */
  override getLsParams(options: this["ParsedCallOptions"]): LangSmithParams {
    const { parameters, outputLimit } = this.#primaryRules(options);
    return lsParams({
      model: this.model,
      temperature: parameters.temperature,
      maxTokens: outputLimit,
      stop: parameters.stop,
    });
  }

  /** The settings as the model's rules send them to `model` (tracers show these): `max_completion_tokens`
   * for the beta-5 series, no sampling for alpha-opus-4-8, gamma-2.5-pro's minimum budget. */
  override invocationParams(options?: this["ParsedCallOptions"]): Record<string, unknown> {
    return {
      model: this.model,
      fallbacks: this.fallbacks,
      ...this.#primaryRules(options).parameters,
      tool_choice: options?.tool_choice,
    };
  }

  #primaryRules(options: this["ParsedCallOptions"] | undefined): RuleOutcome {
    return applyModelRules(this.#resolved.chain[0]!, {
      ...(this.temperature === undefined ? {} : { temperature: this.temperature }),
      ...(this.topP === undefined ? {} : { topP: this.topP }),
      ...(this.maxTokens === undefined ? {} : { maxTokens: this.maxTokens }),
      ...((options?.stop ?? this.stop) === undefined ? {} : { stop: options?.stop ?? this.stop }),
    });
  }

  /** What tells this model's answers apart: LangChain keys its cache by it (with the call options), so
   * two models, or one model with other settings, never share a cached answer. No key, no URL. */
  override _identifyingParams(): Record<string, unknown> {
    const settings = Object.entries(this.invocationParams()).filter(([, value]) => value !== undefined);
    return { model_name: this.model, ...Object.fromEntries(settings) };
  }

  /** The model and settings that identify its answers, as ChatOpenAI's `identifyingParams()` gives them. */
  identifyingParams(): Record<string, unknown> {
    return this._identifyingParams();
  }

  /** Counts tokens with the tokenizer the package ships (the gateway's count), never the network. */
  override async getNumTokens(content: MessageContent): Promise<number> {
    const wire = toWireContent(content);
    if (typeof wire === "string") return countTextTokens(wire);
    return wire.reduce((total, part) => total + (part.type === "text" ? countTextTokens(part.text) : 0), 0);
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
    const { capabilities } = this.#resolved.chain[0]!;
    // Refused here, before a paid request: an image model answers with an image whatever the method.
    if (capabilities.imageGeneration) {
      throw new ParameterError(
        `${this.model} generates images, so it cannot give structured output. Use a text model.`,
      );
    }
    if (!capabilities.tools && (config?.method ?? "functionCalling") === "functionCalling") {
      throw new ParameterError(
        `${this.model} does not call tools, so it cannot give structured output. Use a text model.`,
      );
    }
    // The call options (idempotencyKey, signal) reach the model through the binding.
    return structuredOutput<RunOutput>(this, outputSchema, config) as Runnable<
      BaseLanguageModelInput,
      RunOutput,
      ChatGatewayCallOptions
    >;
  }

  override async _generate(
    messages: BaseMessage[],
    options: this["ParsedCallOptions"],
    runManager?: CallbackManagerForLLMRun,
  ): Promise<ChatResult> {
    if (this.streaming) {
      let aggregate: ChatGenerationChunk | undefined;
      for await (const chunk of this._streamResponseChunks(messages, options, runManager))
        aggregate = aggregate?.concat(chunk) ?? chunk;
      const message = aggregate!.message;
      return {
        generations: [{ text: aggregate!.text, message, generationInfo: aggregate!.generationInfo }],
        llmOutput: llmOutputOf(message),
      };
    }
    const reply = await callChat({ ...this.#call(messages, options), stream: false }, this.#options(options));
    const message = toAIMessage(reply);
    // `message.text` runs LangChain's content-block translators; a string is its own text.
    const text = typeof message.content === "string" ? message.content : message.text;
    return {
      generations: [{ text, message, generationInfo: { finish_reason: reply.finishReason } }],
      llmOutput: llmOutputOf(message),
    };
  }

  /** `stream` with nobody listening (no callback handler, tracer or verbose log) yields the reply's
   * chunks as they come: it skips the aggregate LangChain's `_streamIterator` builds (a merge per
   * chunk, only to hand to `handleLLMEnd`) and `Runnable.stream`'s per-chunk step into the caller's
   * async context (which reads the tracing environment per chunk). With a listener,
   * `disableStreaming` or `outputVersion: "v1"` it is LangChain's own path. Measured on the
   * chat-client bench's text stream row (64 in flight, built package): skipping the aggregate took
   * 12-23% off a request, skipping the per-chunk step another 12% (2.65 -> 2.32 ms, 4 rounds).
   * test/chat-stream-iterator.test.ts checks it against LangChain's path. */
  override async stream(
    input: BaseLanguageModelInput,
    options?: Partial<ChatGatewayCallOptions>,
  ): Promise<IterableReadableStream<AIMessageChunk>> {
    const callOptions = this.#unlistened(ensureConfig(options));
    if (callOptions === undefined) return await super.stream(input, options);
    const chunks = this.#chunks(input, callOptions);
    // As LangChain's stream does, a call that fails before its first chunk rejects `stream()` itself.
    const first = await chunks.next();
    return new IterableReadableStream<AIMessageChunk>({
      start(controller) {
        if (first.done === true) controller.close();
        else controller.enqueue(first.value);
      },
      async pull(controller) {
        const next = await chunks.next();
        if (next.done === true) controller.close();
        else controller.enqueue(next.value);
      },
      async cancel() {
        await chunks.return(undefined);
      },
    });
  }

  override async *_streamIterator(
    input: BaseLanguageModelInput,
    options?: Partial<ChatGatewayCallOptions>,
  ): AsyncGenerator<AIMessageChunk> {
    const callOptions = this.#unlistened(options);
    if (callOptions === undefined) yield* super._streamIterator(input, options);
    else yield* this.#chunks(input, callOptions);
  }

  /** The call options when nobody listens to a stream and it may take the short path; undefined
   * when it must be LangChain's own. */
  #unlistened(options: Partial<ChatGatewayCallOptions> | undefined): this["ParsedCallOptions"] | undefined {
    const [config, callOptions] = this._separateRunnableConfigFromCallOptionsCompat(options);
    const callbacks = CallbackManager.configure(
      config.callbacks,
      this.callbacks,
      undefined,
      undefined,
      undefined,
      undefined,
      {
        verbose: this.verbose,
      },
    );
    const listened = callbacks !== undefined && callbacks.handlers.length > 0;
    if (listened || this.disableStreaming || (callOptions.outputVersion ?? this.outputVersion) === "v1")
      return undefined;
    return callOptions;
  }

  /** The reply's chunks as `stream` yields them, with nobody listening. */
  async *#chunks(input: BaseLanguageModelInput, options: this["ParsedCallOptions"]): AsyncGenerator<AIMessageChunk> {
    const messages = BaseChatModel._convertInputToPromptValue(input).toChatMessages();
    try {
      const { stream, id } = await this.#openStream(messages, options);
      for await (const event of stream) {
        options.signal?.throwIfAborted();
        if (event.type !== "finish") {
          yield toEventChunk(event, id);
          continue;
        }
        const message = toFinalChunk(event.reply, id);
        // What LangChain's path does with a chunk's generation info (here the finish reason).
        message.response_metadata = { finish_reason: event.reply.finishReason, ...message.response_metadata };
        yield message;
      }
      options.signal?.throwIfAborted();
    } catch (error) {
      // LangChain's path races the signal and rejects with its reason, whenever the abort comes;
      // so does this one, so the error does not depend on whether a callback listens.
      if (options.signal?.aborted === true) throw options.signal.reason;
      throw error;
    }
  }

  override async *_streamResponseChunks(
    messages: BaseMessage[],
    options: this["ParsedCallOptions"],
    runManager?: CallbackManagerForLLMRun,
  ): AsyncGenerator<ChatGenerationChunk> {
    const { stream, id } = await this.#openStream(messages, options);
    for await (const event of stream) {
      if (event.type === "finish") {
        const message = toFinalChunk(event.reply, id);
        const text = typeof message.content === "string" ? message.content : message.text;
        yield new ChatGenerationChunk({ message, text, generationInfo: { finish_reason: event.reply.finishReason } });
        continue;
      }
      const text = event.type === "text" ? event.text : "";
      const chunk = new ChatGenerationChunk({ message: toEventChunk(event, id), text });
      if (event.type === "text")
        await runManager?.handleLLMNewToken(event.text, undefined, undefined, undefined, undefined, { chunk });
      yield chunk;
    }
  }

  /** Sends the call as a stream; resolves once the reply shows its first output. */
  async #openStream(
    messages: BaseMessage[],
    options: this["ParsedCallOptions"],
  ): Promise<{ stream: ChatEventStream; id: string }> {
    const stream = await callChat({ ...this.#call(messages, options), stream: true }, this.#options(options));
    // Every chunk of one reply carries the reply's id, so they merge into one message.
    return { stream, id: stream.responseId ?? `run-${randomUUID()}` };
  }

  /** Closes the connections of the model's own client (a shared `client` is left open). */
  async close(): Promise<void> {
    if (this.#resolved.ownsClient) await this.#resolved.client.close();
  }

  /** The wire call for LangChain messages and call options. */
  #call(messages: BaseMessage[], options: this["ParsedCallOptions"]): ChatCall {
    const tools = options.tools?.map(toWireTool);
    const stop = options.stop ?? this.stop;
    const toolChoice = tools?.length
      ? toWireToolChoice(options.tool_choice, tools)
      : choiceWithoutTools(options.tool_choice);
    return {
      model: this.model,
      fallbacks: this.fallbacks,
      messages: toWireMessages(messages),
      ...(tools?.length ? { tools } : {}),
      ...(toolChoice === undefined ? {} : { tool_choice: toolChoice }),
      ...(options.parallel_tool_calls === undefined ? {} : { parallel_tool_calls: options.parallel_tool_calls }),
      ...(options.response_format === undefined
        ? {}
        : { response_format: toJsonSchemaFormat(options.response_format) }),
      ...(this.maxTokens === undefined ? {} : { max_tokens: this.maxTokens }),
      ...(this.temperature === undefined ? {} : { temperature: this.temperature }),
      ...(this.topP === undefined ? {} : { top_p: this.topP }),
      ...(stop === undefined ? {} : { stop }),
    };
  }

  #options(options: this["ParsedCallOptions"]): ChatCallOptions {
    const resolved = this.#resolved;
    return {
      client: resolved.client,
      scheduler: resolved.scheduler,
      retry: resolved.retry,
      ...(resolved.ledger === undefined ? {} : { ledger: resolved.ledger }),
      ...(resolved.usageTags === undefined ? {} : { usageTags: resolved.usageTags }),
      ...(resolved.timeoutMs === undefined ? {} : { timeoutMs: resolved.timeoutMs }),
      ...(options.signal === undefined ? {} : { signal: options.signal }),
      ...(options.idempotencyKey === undefined ? {} : { idempotencyKey: options.idempotencyKey }),
      onWarning: (warning) => resolved.warnings.emit(warning),
      ...(resolved.onRetry === undefined ? {} : { onRetry: resolved.onRetry }),
    };
  }
}

function llmOutputOf(message: BaseMessage): Record<string, unknown> | undefined {
  const usage = (message as AIMessageChunk).usage_metadata;
  return (
    usage && {
      tokenUsage: {
        promptTokens: usage.input_tokens,
        completionTokens: usage.output_tokens,
        totalTokens: usage.total_tokens,
      },
    }
  );
}

/** A `tool_choice` with no tools bound: "auto" and "none" mean nothing and are not sent; one that
 * demands a call is refused (relays answer it with a 400). */
function choiceWithoutTools(choice: unknown): ToolChoice | undefined {
  const wire = toWireToolChoice(choice);
  if (wire === undefined || wire === "auto" || wire === "none") return undefined;
  throw new ParameterError(
    `tool_choice ${JSON.stringify(choice)} asks for a tool call, but no tools are bound. ` +
      "Bind them with model.bindTools(tools, { tool_choice }).",
  );
}
