import { SvcFlowError, type GatewayIds } from "../errors.js";
import type { ChatStream } from "../gateway/chat-stream.js";
import { AttemptHold, attemptCallOptions, type AttemptContext } from "./attempt-hold.js";
import { ReplyCollector, type CompletedReply, type PartialReply, type ReplyEvent } from "./collect-reply.js";
import type { RequestPlan } from "./plan-request.js";

/** A streamed attempt that has shown its first output (or ended): from here it may not fall back. */
export interface OpenReply {
  /** Every event, grouped as they arrived (the ones already read first); returns the complete
   * reply. Throws a stream failure with the partial. Leaving early (return, throw) cancels the
   * reply. Iterate once. */
  batches(): AsyncGenerator<ReplyEvent[], CompletedReply>;
  /** Stops reading: frees the connection and the slot (safe to call at any time, also after the end). */
  cancel(): Promise<void>;
  /** The reply, when it was complete before anything was shown (a single response). */
  readonly complete?: CompletedReply;
}

/** An attempt that is already complete, as an OpenReply. */
function completed(reply: CompletedReply, head: ReplyEvent[] = []): OpenReply {
  return {
    ...(head.length === 0 ? { complete: reply } : {}),
    async *batches() {
      if (head.length > 0) yield head;
      return reply;
    },
    cancel: async () => {},
  };
}

/** Failure of a stream after output was shown: carries what had arrived. */
export type BrokenStream = (error: unknown, partial: PartialReply) => SvcFlowError;

/** One non-streamed attempt: budget held, slot held, request sent, reply checked. */
export async function completeOnce(plan: RequestPlan, context: AttemptContext): Promise<CompletedReply> {
  const hold = await AttemptHold.take(plan, context);
  try {
    const { response, ids, replayed } = await context.client.chat(plan.request, attemptCallOptions(context, plan));
    const collector = new ReplyCollector(plan.model);
    collector.takeResponse(response);
    return hold.complete(collector.finish(ids, replayed));
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
  let stream: ChatStream;
  let cancelStream: () => Promise<void> = async () => {};
  const head: ReplyEvent[] = [];
  try {
    // The collector keeps what a broken stream's error needs; the chunks themselves are not kept.
    stream = await context.client.chatStream(plan.request, { ...attemptCallOptions(context, plan), keepPartial: false });
    ids = stream.ids;
    replayed = stream.replayed === true;
    cancelStream = () => stream.cancel();
    while (!collector.started) {
      const more = await stream.nextRead((chunk) => collector.push(chunk, head));
      if (!more) return completed(hold.complete(collector.finish(ids, replayed)), head);
    }
  } catch (error) {
    hold.fail(error);
    await cancelStream();
    throw error;
  }
  const cancel = async (): Promise<void> => {
    if (hold.done) return;
    // The consumer stopped early (break, abort): an unfinished reply is not billed.
    hold.fail(new SvcFlowError("cancelled", "The consumer stopped reading the stream."));
    await cancelStream();
  };
  // A consumer that aborts may never pull again (LangChain answers the abort itself), so the
  // slot and connection are freed on the signal rather than on the next read.
  const signal = context.signal;
  if (signal) {
    const onAbort = (): void => void cancel();
    signal.addEventListener("abort", onAbort, { once: true });
    hold.onEnd(() => signal.removeEventListener("abort", onAbort));
  }
  return {
    cancel,
    async *batches() {
      let ended = false;
      try {
        if (head.length > 0) yield head;
        for (let events = await nextEvents(stream, collector); events !== undefined; events = await nextEvents(stream, collector)) {
          if (events.length > 0) yield events;
        }
        ended = true;
      } catch (error) {
        hold.fail(error);
        throw broken(error, collector.partial());
      } finally {
        if (!ended) await cancel();
      }
      return hold.complete(collector.finish(ids, replayed));
    },
  };
}

/** The events of the stream's next network read; undefined at its end. The chunks are gone once
 * read: only the events are held while the consumer works through them. */
async function nextEvents(stream: ChatStream, collector: ReplyCollector): Promise<ReplyEvent[] | undefined> {
  const events: ReplyEvent[] = [];
  return (await stream.nextRead((chunk) => collector.push(chunk, events))) ? events : undefined;
}

/** One attempt of a plan: streamed when the plan streams, a single response otherwise. */
export async function runAttempt(plan: RequestPlan, context: AttemptContext, broken: BrokenStream): Promise<OpenReply> {
  if (plan.stream) return openOnce(plan, context, broken);
  return completed(await completeOnce(plan, context));
}
