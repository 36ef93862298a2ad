import { AbortedError, SvcFlowError, type GatewayIds } from "../errors.js";
import type { ChatStream } from "../gateway/chat-stream.js";
import { onAbort } from "../gateway/on-abort.js";
import { toAbortedError } from "../gateway/to-aborted-error.js";
import type { ChatChunk } from "../gateway/wire.js";
import { AttemptHold, attemptCallOptions, type AttemptContext } from "./attempt-hold.js";
import {
  ReplyCollector,
  replyFromResponse,
  type CompletedReply,
  type PartialReply,
  type ReplyEvent,
} from "./collect-reply.js";
import type { RequestPlan } from "./plan-request.js";

/** What one read of an open reply gives: the next events, or the complete reply at the end. */
export type ReplyRead =
  | { readonly done: false; readonly events: readonly ReplyEvent[] }
  | { readonly done: true; readonly reply: CompletedReply };

/** An attempt that has shown its first output, or ended: from here it may not fall back. */
export interface OpenReply {
  readonly ids: GatewayIds;
  /** The response id, once a chunk carried one. */
  readonly responseId?: string;
  /** The next events of the reply (those read while opening first; maybe none, as for a usage
   * chunk), then the complete reply. Throws a stream failure with the partial. */
  read(): Promise<ReplyRead>;
  /** Stops reading: frees the connection and the slot (safe at any time, also after the end). */
  cancel(): Promise<void>;
}

/** Failure of a stream after output was shown: carries what had arrived. */
export type BrokenStream = (error: unknown, partial: PartialReply) => SvcFlowError;

/** An attempt that is already complete, as an OpenReply. */
export function completed(reply: CompletedReply): OpenReply {
  return {
    ids: reply.ids,
    ...(reply.responseId === undefined ? {} : { responseId: reply.responseId }),
    read: async () => ({ done: true, reply }),
    cancel: async () => {},
  };
}

/** One non-streamed attempt: budget held, slot held, request sent, reply checked. */
async function completeOnce(plan: RequestPlan, context: AttemptContext): Promise<CompletedReply> {
  const hold = await AttemptHold.take(plan, context);
  try {
    const { response, ids, replayed } = await context.client.chat(plan.request, attemptCallOptions(context, plan));
    return hold.complete(replyFromResponse(response, plan.model, ids, replayed));
  } catch (error) {
    hold.fail(error);
    throw error;
  }
}

/** One streamed attempt, read until its first shown output; errors before that are the caller's
 * to retry or fall back on, since nothing reached the user yet. */
async function openOnce(plan: RequestPlan, context: AttemptContext, broken: BrokenStream): Promise<OpenReply> {
  const hold = await AttemptHold.take(plan, context);
  const collector = new ReplyCollector(plan.model);
  // What the chunks read so far show, before the caller takes it.
  let shown: ReplyEvent[] = [];
  let stream: ChatStream | undefined;
  try {
    // The collector keeps what a broken stream's error needs; the chunks themselves are not kept.
    stream = await context.client.chatStream(plan.request, {
      ...attemptCallOptions(context, plan),
      keepPartial: false,
    });
    while (!collector.started) {
      const chunks = await stream.read();
      if (chunks === undefined) return completed(hold.complete(collector.finish(stream.ids, stream.replayed)));
      for (const chunk of chunks) collector.push(chunk, shown);
    }
  } catch (error) {
    hold.fail(error);
    await stream?.cancel();
    throw error;
  }
  const opened = stream;
  let cancelled = false;
  const cancel = async (): Promise<void> => {
    if (hold.done) return;
    cancelled = true;
    // The consumer stopped early (break, abort): an unfinished reply is not billed.
    hold.fail(new SvcFlowError("cancelled", "The consumer stopped reading the stream."));
    await opened.cancel();
  };
  // A consumer that aborts may never pull again, so the slot and connection are freed on the
  // signal rather than on the next read.
  const signal = context.signal;
  if (signal) {
    hold.onEnd(onAbort(signal, () => void cancel()));
  }
  let reply: CompletedReply | undefined;
  const read = async (): Promise<ReplyRead> => {
    if (reply !== undefined) return { done: true, reply };
    if (shown.length > 0) {
      const events = shown;
      shown = [];
      return { done: false, events };
    }
    let chunks: readonly ChatChunk[] | undefined;
    try {
      chunks = await opened.read();
      if (cancelled)
        throw signal?.aborted === true ? toAbortedError(signal.reason) : new AbortedError("The stream was cancelled.");
    } catch (error) {
      hold.fail(error);
      throw broken(error, collector.partial());
    }
    if (chunks === undefined) {
      reply = hold.complete(collector.finish(opened.ids, opened.replayed));
      return { done: true, reply };
    }
    const events: ReplyEvent[] = [];
    for (const chunk of chunks) collector.push(chunk, events);
    return { done: false, events };
  };
  return {
    ids: opened.ids,
    ...(collector.responseId === undefined ? {} : { responseId: collector.responseId }),
    read,
    cancel,
  };
}

/** One attempt of a plan: streamed when the plan streams (open at its first output), the complete
 * reply of a single response otherwise. */
export function runAttempt(
  plan: RequestPlan,
  context: AttemptContext,
  broken: BrokenStream,
): Promise<OpenReply | CompletedReply> {
  return plan.stream ? openOnce(plan, context, broken) : completeOnce(plan, context);
}

/** True for an attempt that is open (a stream), false for a complete reply. */
export function isOpenReply(attempt: OpenReply | CompletedReply): attempt is OpenReply {
  return "read" in attempt;
}
