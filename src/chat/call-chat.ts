import type { Dispatcher } from "undici";
import { getModel, type ModelInfo } from "../catalog/models.js";
import { ConfigError, type SvcFlowError } from "../errors.js";
import { checkIdempotencyKey } from "../gateway/call-headers.js";
import type { GatewayClient } from "../gateway/gateway-client.js";
import type { UsageRecorder } from "../gateway/usage-recorder.js";
import type { ChatRequest, Message, Tool, ToolChoice } from "../gateway/wire.js";
import { resolvePolicy, type RetryPolicy } from "../scheduling/retry.js";
import type { AttemptContext, SlotSource } from "./attempt-hold.js";
import { brokenStreamError, invalidToolCallError } from "./broken-stream.js";
import { callDeadline, type CallDeadline } from "./call-deadline.js";
import { callWithFallback, type FallbackResult } from "./call-with-fallback.js";
import type { ChatEvent, ChatEventStream, ChatReply } from "./chat-reply.js";
import type { CompletedReply } from "./collect-reply.js";
import { countReplyImages, imageLinksFromReply } from "./decode-image-reply.js";
import { ChatWarning, WarningOnce, type WarningHandler } from "./parameter-warning.js";
import { planChain, type ChainPlan } from "./plan-request.js";
import { completed, isOpenReply, runAttempt, type OpenReply } from "./run-attempt.js";

/** A chat call in wire terms, for a model of the catalogue and its fallbacks. Sampling and the
 * output limit are re-mapped per model by the catalogue's rules (renamed, dropped or raised, each
 * with a warning). */
export interface ChatCall {
  /** A catalogue id, e.g. "alpha-sonnet-4-6"; unknown ids are refused at once. */
  readonly model: string;
  /** Models to move to, in order, when one fails before its first output (after its retries),
   * asks for a long wait, or comes back empty. Default none. */
  readonly fallbacks?: readonly string[];
  readonly messages: Message[];
  readonly tools?: Tool[];
  readonly tool_choice?: ToolChoice;
  readonly parallel_tool_calls?: boolean;
  readonly response_format?: ChatRequest["response_format"];
  /** The output budget, sent in the field each model takes. */
  readonly max_tokens?: number;
  /** 0..1. */
  readonly temperature?: number;
  /** 0..1. */
  readonly top_p?: number;
  readonly stop?: string | readonly string[];
  /** True: resolve to a stream of events once the reply shows its first output. Default false:
   * resolve to the complete reply. */
  readonly stream?: boolean;
}

/** Where and how a chat call is sent; only `client` is required. */
export interface ChatCallOptions {
  /** The gateway client to send through. */
  readonly client: GatewayClient;
  /** Concurrency slots, held until a reply (stream included) has ended. Default unlimited. */
  readonly scheduler?: SlotSource;
  /** Receives every attempt: reserve before sending, settle after. Default none. */
  readonly ledger?: UsageRecorder;
  /** Tags for the ledger's entries. */
  readonly usageTags?: Readonly<Record<string, string>>;
  /** Retries per model. Default RETRY_DEFAULTS (4 attempts). */
  readonly retry?: RetryPolicy;
  /** Overall limit of the call, retries and fallbacks included. Default none. */
  readonly timeoutMs?: number;
  readonly signal?: AbortSignal;
  /** Sends the call's requests through this dispatcher instead of the client's (a view of it). Default the client's. */
  readonly dispatcher?: Dispatcher;
  /** Identifies the call for the gateway's idempotency store: each model sends `<key>:<model>`,
   * the same on every retry, so a retry after a lost answer is replayed, not billed again. */
  readonly idempotencyKey?: string;
  /** Receives warnings (parameter rules, fallbacks, usage doubts), each once per call. Default
   * `process.emitWarning`. */
  readonly onWarning?: WarningHandler;
  /** Told before each wait for a retry of the same model: which model, the attempt that failed, why, and the wait. */
  readonly onRetry?: (retry: ChatRetry) => void;
}

/** A retry about to happen, as `onRetry` is told. */
export interface ChatRetry {
  readonly model: string;
  /** The attempt that failed (1 for the first). */
  readonly attempt: number;
  readonly delayMs: number;
  readonly error: SvcFlowError;
}

// Resolved once: most calls take the default policy.
const DEFAULT_RETRY = resolvePolicy({});

/**
 * Sends a chat call: plans each model of the chain by its rules, holds budget and a concurrency
 * slot per attempt, retries, and falls back on any failure before the first output (an error
 * inside a 200 stream included). Resolves to the complete reply, or with `stream: true` to the
 * reply's events; a failure after the first output is a StreamError carrying the partial output.
 */
export function callChat(
  call: ChatCall & { readonly stream: true },
  options: ChatCallOptions,
): Promise<ChatEventStream>;
export function callChat(call: ChatCall & { readonly stream?: false }, options: ChatCallOptions): Promise<ChatReply>;
export function callChat(call: ChatCall, options: ChatCallOptions): Promise<ChatReply | ChatEventStream>;
export async function callChat(call: ChatCall, options: ChatCallOptions): Promise<ChatReply | ChatEventStream> {
  const chain = modelChain(call);
  if (options.timeoutMs !== undefined && !(options.timeoutMs > 0)) {
    throw new ConfigError(`Expected timeoutMs to be > 0, got ${options.timeoutMs}.`);
  }
  const deadline = callDeadline(call.model, options.signal, options.timeoutMs);
  let started: StartedCall;
  let result: FallbackResult<OpenReply | CompletedReply>;
  try {
    started = startCall(chain, call, options, deadline);
    result = await started.running;
  } catch (error) {
    throw deadline.explain(error);
  }
  const attempt = result.value;
  const requested = chain[0]!.id;
  // A prompt too long for the first model's window moved the call on before anything was sent.
  const movedFrom = started.skipped.some((entry) => entry.model === requested) ? [requested] : [];
  const origin: ReplyOrigin = {
    requestedModel: requested,
    model: result.plan.model,
    fallbackFrom: [...movedFrom, ...result.fallbackFrom],
  };
  if (call.stream === true) return eventStream(isOpenReply(attempt) ? attempt : completed(attempt), origin, deadline);
  if (!isOpenReply(attempt)) return chatReply(attempt, origin);
  // An output budget above the stream threshold went as a stream: read it to the end.
  const open = attempt;
  try {
    for (;;) {
      const read = await open.read();
      if (read.done) return chatReply(read.reply, origin);
    }
  } catch (error) {
    throw deadline.explain(error);
  } finally {
    await open.cancel();
  }
}

/** Which call produced a reply: the model asked for, the one that answered, those tried before. */
interface ReplyOrigin {
  readonly requestedModel: string;
  readonly model: ModelInfo;
  readonly fallbackFrom: readonly string[];
}

function modelChain(call: ChatCall): ModelInfo[] {
  if (typeof call.model !== "string" || call.model.length === 0) {
    throw new ConfigError('A chat call needs a model, e.g. { model: "alpha-sonnet-4-6" }.');
  }
  return [call.model, ...(call.fallbacks ?? [])]
    .filter((id, position, ids) => ids.indexOf(id) === position)
    .map((id) => getModel(id));
}

/** A call under way: the models its plan left out, and the attempts running. */
interface StartedCall {
  readonly skipped: ChainPlan["skipped"];
  /** Resolves once a reply has shown its first output, or is complete. */
  readonly running: Promise<FallbackResult<OpenReply | CompletedReply>>;
}

/** Plans the whole chain, then starts trying each model (with retries) until one answers. */
function startCall(
  chain: readonly ModelInfo[],
  call: ChatCall,
  options: ChatCallOptions,
  deadline: CallDeadline,
): StartedCall {
  if (options.idempotencyKey !== undefined) checkIdempotencyKey(options.idempotencyKey);
  const { plans, skipped } = planChain(chain, {
    messages: call.messages,
    tools: call.tools?.length ? call.tools : undefined,
    toolChoice: call.tool_choice,
    parallelToolCalls: call.parallel_tool_calls,
    responseFormat: call.response_format,
    settings: { temperature: call.temperature, topP: call.top_p, maxTokens: call.max_tokens, stop: call.stop },
    stream: call.stream === true,
  });
  const warnings = new WarningOnce(options.onWarning);
  const context: AttemptContext = {
    client: options.client,
    slots: options.scheduler,
    ledger: options.ledger,
    usageTags: options.usageTags,
    onWarning: (warning) => warnings.emit(warning),
    signal: deadline.signal,
    idempotencyKey: options.idempotencyKey,
    dispatcher: options.dispatcher,
  };
  const running = callWithFallback(
    plans,
    (plan) => {
      for (const warning of plan.warnings) warnings.emit(warning);
      return runAttempt(plan, context, (error, partial) => brokenStreamError(deadline.explain(error), partial));
    },
    {
      retry: options.retry === undefined ? DEFAULT_RETRY : resolvePolicy(options.retry),
      ...(deadline.signal === undefined ? {} : { signal: deadline.signal }),
      onRetry: (plan, error, attempt, delayMs) => options.onRetry?.({ model: plan.model.id, attempt, delayMs, error }),
      onFallback(from, to, error: SvcFlowError) {
        warnings.emit(
          new ChatWarning(
            "fallback_used",
            from.model.id,
            `${from.model.id} failed (${error.code}: ${error.message}); moved to ${to.model.id}.`,
          ),
        );
      },
    },
  );
  return { skipped, running };
}

function chatReply(reply: CompletedReply, origin: ReplyOrigin): ChatReply {
  return {
    content: reply.content,
    reasoning: reply.reasoning,
    toolCalls: reply.toolCalls.toolCalls,
    invalidToolCalls: reply.toolCalls.invalidToolCalls,
    toolCallExtras: reply.toolCalls.extras,
    finishReason: reply.finishReason,
    ...(reply.usage === undefined ? {} : { usage: reply.usage }),
    model: origin.model.id,
    requestedModel: origin.requestedModel,
    servedModel: reply.servedModel,
    fallbackFrom: origin.fallbackFrom,
    ...(reply.responseId === undefined ? {} : { responseId: reply.responseId }),
    ids: reply.ids,
    replayed: reply.replayed,
    images: origin.model.capabilities.imageGeneration ? countReplyImages(reply.content) : 0,
    imageLinks: origin.model.capabilities.imageGeneration ? imageLinksFromReply(reply.content) : [],
  };
}

function eventStream(open: OpenReply, origin: ReplyOrigin, deadline: CallDeadline): ChatEventStream {
  async function* events(): AsyncGenerator<ChatEvent> {
    try {
      for (;;) {
        const read = await open.read();
        if (read.done) {
          // A streamed tool call with unusable arguments is an error, not an answer to pass on.
          const invalid = invalidToolCallError(read.reply);
          if (invalid) throw invalid;
          yield { type: "finish", reply: chatReply(read.reply, origin) };
          return;
        }
        for (const event of read.events) yield event;
      }
    } catch (error) {
      throw deadline.explain(error);
    } finally {
      await open.cancel();
    }
  }
  const iterator = events();
  let iterated = false;
  return {
    model: origin.model.id,
    requestedModel: origin.requestedModel,
    fallbackFrom: origin.fallbackFrom,
    ids: open.ids,
    ...(open.responseId === undefined ? {} : { responseId: open.responseId }),
    [Symbol.asyncIterator]() {
      if (iterated) throw new ConfigError("A chat event stream can be iterated only once.");
      iterated = true;
      return iterator;
    },
    cancel: () => open.cancel(),
  };
}
