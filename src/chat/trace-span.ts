import type { ChatCall } from "./call-chat.js";
import type { ChatReply } from "./chat-reply.js";

/** Receives work that makes chat calls as one trace tree (a workflow run > its steps > their calls),
 * for a tracer such as LangSmith; svc-flow/langchain's `langChainTracer` turns LangChain callbacks into one. */
export interface Tracer {
  /** Opens the root of a tree. */
  start(span: SpanStart): Promise<TraceSpan>;
}

/** What a span is opened with. */
export interface SpanStart {
  /** Shown as the span's name: the workflow's name, a step's key (`posters[2].poster`). */
  readonly name: string;
  /** `run`, a step kind (`chat`, `map`, ...) or `item` (one item of a map). */
  readonly kind: string;
  readonly input: Readonly<Record<string, unknown>>;
  readonly metadata?: Readonly<Record<string, unknown>>;
}

/** One node of the tree: a run, a step, a map item. End it once, with `end` or `fail`. */
export interface TraceSpan {
  /** Opens a span inside this one. */
  child(span: SpanStart): Promise<TraceSpan>;
  /** Opens the trace of a chat call made inside this span. */
  call(call: ChatCall): Promise<CallTrace>;
  /** What LangChain runnables started inside this span (agents) take as `callbacks`, so their runs nest
   * here; opaque outside svc-flow/langchain. */
  readonly callbacks: unknown;
  end(output: Readonly<Record<string, unknown>>): Promise<void>;
  fail(error: unknown): Promise<void>;
}

/** The trace of one chat call: ended with its reply or its error. */
export interface CallTrace {
  end(reply: ChatReply): Promise<void>;
  fail(error: unknown): Promise<void>;
}
