import { CallbackManager, type CallbackManagerForChainRun, type Callbacks } from "@langchain/core/callbacks/manager";
import { awaitAllCallbacks } from "@langchain/core/callbacks/promises";
import { coerceMessageLikeToMessage, type BaseMessage } from "@langchain/core/messages";
import type { Serialized } from "@langchain/core/load/serializable";
import type { ChatGeneration } from "@langchain/core/outputs";
import type { ChatCall } from "../chat/call-chat.js";
import type { CallTrace, SpanStart, TraceSpan, Tracer } from "../chat/trace-span.js";
import type { Message } from "../gateway/wire.js";
import { toAIMessage } from "./build-reply-message.js";
import { lsParams } from "./ls-params.js";

/**
 * A tracer that reports to LangChain callback handlers (a BaseTracer, LangSmith's LangChainTracer): each
 * span is a chain run, each chat call an LLM run with the `ls_*` metadata LangSmith prices by, nested
 * run > step > call. With LANGSMITH_TRACING=true (or LangChain's older variables) LangSmith's tracer is
 * added as LangChain itself adds it. Undefined when there is no handler, so nothing is traced.
 */
export function langChainTracer(callbacks?: Callbacks): Tracer | undefined {
  const manager = CallbackManager.configure(callbacks);
  if (manager === undefined || manager.handlers.length === 0) return undefined;
  return { start: (span) => openSpan(manager, span, true) };
}

/** Options that trace a workflow run with LangChain callbacks. */
export interface TraceOptions {
  /** LangChain callback handlers (a tracer) that receive the run as one tree: run > step > call, agents' runs
   * inside their step. Default none; LangSmith's tracer is added when its environment turns tracing on. */
  readonly callbacks?: Callbacks;
}

async function openSpan(parent: CallbackManager, span: SpanStart, root: boolean): Promise<TraceSpan> {
  const manager = parent.copy();
  // The span's own (the run's id, an item's index): its runs inside carry their own.
  if (span.metadata !== undefined) manager.addMetadata({ ...span.metadata }, false);
  const run = await manager.handleChainStart(
    serialized(span.kind),
    { ...span.input },
    undefined,
    undefined,
    undefined,
    undefined,
    span.name,
  );
  return chainSpan(run, root);
}

function chainSpan(run: CallbackManagerForChainRun, root: boolean): TraceSpan {
  const children = (): CallbackManager => run.getChild();
  // The root waits for handlers LangChain runs in the background, so a run's trace is complete when it returns.
  const flushed = async (): Promise<void> => {
    if (root) await awaitAllCallbacks();
  };
  return {
    child: (span) => openSpan(children(), span, false),
    call: (call) => openCall(children(), call),
    callbacks: children(),
    async end(output) {
      await run.handleChainEnd({ ...output });
      await flushed();
    },
    async fail(error) {
      await run.handleChainError(error);
      await flushed();
    },
  };
}

async function openCall(manager: CallbackManager, call: ChatCall): Promise<CallTrace> {
  const { messages, ...settings } = call;
  manager.addMetadata(
    lsParams({
      model: call.model,
      temperature: call.temperature,
      maxTokens: call.max_tokens,
      stop: call.stop,
    }),
    false,
  );
  const [run] = await manager.handleChatModelStart(
    serialized("callChat"),
    [messages.map(toMessage)],
    undefined,
    undefined,
    { invocation_params: settings },
    undefined,
    undefined,
    call.model,
  );
  return {
    async end(reply) {
      const message = toAIMessage(reply);
      const text = typeof message.content === "string" ? message.content : message.text;
      const generation: ChatGeneration = { text, message, generationInfo: { finish_reason: reply.finishReason } };
      await run!.handleLLMEnd({
        generations: [[generation]],
        ...(reply.usage === undefined
          ? {}
          : {
              llmOutput: {
                tokenUsage: {
                  promptTokens: reply.usage.prompt_tokens,
                  completionTokens: reply.usage.completion_tokens,
                  totalTokens: reply.usage.total_tokens,
                },
              },
            }),
      });
    },
    fail: (error) => run!.handleLLMError(error),
  };
}

// A wire message read the way LangChain reads an OpenAI-style message dict.
function toMessage(message: Message): BaseMessage {
  return coerceMessageLikeToMessage({ ...message, content: message.content ?? "" } as Parameters<
    typeof coerceMessageLikeToMessage
  >[0]);
}

function serialized(kind: string): Serialized {
  return { lc: 1, type: "not_implemented", id: ["svc_flow", kind] };
}
