import { SvcFlowError, type GatewayIds } from "../errors.js";
import type { ChatStream } from "../gateway/chat-stream.js";
import type { StreamCallOptions } from "../gateway/gateway-client.js";
import { onAbort } from "../gateway/on-abort.js";
import type { ArgumentsDelta } from "../gateway/arguments-delta.js";
import type { ChatChunk } from "../gateway/wire.js";
import { AttemptHold, attemptCallOptions, type AttemptContext } from "./attempt-hold.js";
import { EventQueue, ReplyCollector, type CompletedReply, type PartialReply, type ReplyEvent } from "./collect-reply.js";
import type { RequestPlan } from "./plan-request.js";

/** A streamed attempt that has shown its first output (or ended): from here it may not fall back. */
export interface OpenReply {
  /** The next event of what was read (those read while opening first), made now; undefined when
   * none is left: then `read()`. Throws a stream failure with the partial. */
  take(): ReplyEvent | undefined;
  /** Waits for more of the reply: resolves to the complete reply at its end (once every event was
   * taken), undefined when there is more to take. Throws a stream failure with the partial. */
  read(): Promise<CompletedReply | undefined>;
  /** Stops reading: frees the connection and the slot (safe to call at any time, also after the end). */
  cancel(): Promise<void>;
  /** The reply, when it was complete before anything was shown (a single response). */
  readonly complete?: CompletedReply;
}

/** An attempt that is already complete, as an OpenReply. */
function completed(reply: CompletedReply, head?: EventQueue): OpenReply {
  // Starts with a method, not a spread: see pieceMessage in stream-piece.ts.
  return {
    take() {
      return head?.shift();
    },
    async read() {
      return reply;
    },
    async cancel() {},
    ...(head === undefined || head.length === 0 ? { complete: reply } : {}),
  };
}

/** Failure of a stream after output was shown: carries what had arrived. */
export type BrokenStream = (error: unknown, partial: PartialReply) => SvcFlowError;

/** One non-streamed attempt: budget held, slot held, request sent, reply checked. */
async function completeOnce(plan: RequestPlan, context: AttemptContext): Promise<OpenReply> {
  const hold = await AttemptHold.take(plan, context);
  try {
    const { response, ids, replayed } = await context.client.chat(plan.request, attemptCallOptions(context, plan));
    const collector = new ReplyCollector(plan.model);
    collector.takeResponse(response);
    return completed(hold.complete(collector.finish(ids, replayed)));
  } catch (error) {
    hold.fail(error);
    throw error;
  }
}

/** One streamed attempt, read until its first shown output; errors before that are the caller's
 * to retry or fall back on, since nothing reached the user yet. */
export async function openOnce(plan: RequestPlan, context: AttemptContext, broken: BrokenStream): Promise<OpenReply> {
  const hold = await AttemptHold.take(plan, context);
  const collector = new ReplyCollector(plan.model);
  let ids: GatewayIds = {};
  let replayed = false;
  let stream: ChatStream | undefined;
  // What the chunks taken so far show, and the consumer has not taken yet.
  const shown = new EventQueue();
  let reply: CompletedReply | undefined;
  try {
    // The collector keeps what a broken stream's error needs; the chunks themselves are not kept.
    const options: StreamCallOptions = attemptCallOptions(context, plan);
    options.keepPartial = false;
    stream = await context.client.chatStream(plan.request, options);
    ids = stream.ids;
    replayed = stream.replayed === true;
    for (;;) {
      const delta = stream.takeDelta();
      if (delta !== undefined) collector.pushDelta(delta, shown);
      else if (!(await stream.read())) return completed(hold.complete(collector.finish(ids, replayed)), shown);
      if (collector.started) break;
    }
  } catch (error) {
    hold.fail(error);
    await stream?.cancel();
    throw error;
  }
  const opened = stream;
  // A consumer that aborts may never pull again (LangChain answers the abort itself), so the
  // slot and connection are freed on the signal rather than on the next read.
  const signal = context.signal;
  if (signal) {
    hold.onEnd(onAbort(signal, () => void open.cancel()));
  }
  // Methods, not arrow functions: see ChunkSource in chat-stream.ts (the cost of a named closure).
  const open: OpenReply = {
    async cancel() {
      if (hold.done) return;
      // The consumer stopped early (break, abort): an unfinished reply is not billed.
      hold.fail(new SvcFlowError("cancelled", "The consumer stopped reading the stream."));
      await opened.cancel();
    },
    take() {
      for (;;) {
        const event = shown.shift();
        if (event !== undefined) return event;
        let delta: ChatChunk | string | ArgumentsDelta | undefined;
        try {
          delta = opened.takeDelta();
        } catch (error) {
          return failBroken(hold, broken, collector, error);
        }
        if (delta === undefined) return undefined;
        collector.pushDelta(delta, shown);
      }
    },
    async read() {
      let more: boolean;
      try {
        more = await opened.read();
      } catch (error) {
        return failBroken(hold, broken, collector, error);
      }
      if (more) return undefined;
      reply ??= hold.complete(collector.finish(ids, replayed));
      return reply;
    },
  };
  return open;
}

function failBroken(hold: AttemptHold, broken: BrokenStream, collector: ReplyCollector, error: unknown): never {
  hold.fail(error);
  throw broken(error, collector.partial());
}

/** One attempt of a plan: streamed when the plan streams, a single response otherwise. Not async:
 * an async function's frame stays alive, suspended, for as long as the call is in flight. */
export function runAttempt(plan: RequestPlan, context: AttemptContext, broken: BrokenStream): Promise<OpenReply> {
  return plan.stream ? openOnce(plan, context, broken) : completeOnce(plan, context);
}
