import type { ServerResponse } from "node:http";
import { setTimeout as sleep } from "node:timers/promises";
import type { BilledEntry } from "./billing.js";
import type { FaultDecision } from "./faults.js";
import type { QuotaHold } from "./key-account.js";
import type { DialectStream } from "./dialects/index.js";
import type { CompletionMeta, RenderedReply } from "./rendered-reply.js";
import { SseWriter } from "./write-sse.js";

/** What a streamed reply needs. */
export interface StreamPlan {
  readonly meta: CompletionMeta;
  readonly rendered: RenderedReply;
  readonly includeUsage: boolean;
  readonly fault: FaultDecision;
  readonly hold: QuotaHold;
  readonly entry: Omit<BilledEntry, "yuan" | "refunded">;
}

/**
 * Streams a reply as SSE. It is billed just before its last chunk is written; a stream cut by
 * an injected fault or left by the client before then is not billed.
 */
export async function streamCompletion(response: ServerResponse, plan: StreamPlan): Promise<void> {
  const { fault } = plan;
  const delayMs = fault.kind === "none" || fault.kind === "drop" ? fault.chunkDelayMs : 0;
  const writer = new SseWriter(response);
  writer.start();
  if (delayMs === 0 && fault.kind !== "drop") {
    // The whole reply is known, so the events go out in one write (the client still sees
    // each event; only the TCP packets are fewer).
    plan.hold.commit(plan.entry);
    writer.finish(plan.rendered.sse(plan.meta, plan.includeUsage));
    return;
  }
  const { chunks, finishIndex } = plan.rendered.chunks(plan.meta, plan.includeUsage);
  // A cut falls after the role chunk and before the finish chunk: the client sees a partial reply.
  const cutIndex = fault.kind === "drop" ? Math.min(finishIndex, 1 + Math.floor(fault.cutAt * finishIndex)) : -1;
  let settled = false;
  try {
    if (delayMs === 0) {
      await writer.events(chunks.slice(0, cutIndex));
      await writer.cut();
      return;
    }
    for (const [index, chunk] of chunks.entries()) {
      if (index === cutIndex) {
        await writer.cut();
        return;
      }
      if (index > 0) await sleep(delayMs);
      if (!writer.open) return;
      if (index === chunks.length - 1) {
        plan.hold.commit(plan.entry);
        settled = true;
      }
      await writer.events([chunk], index === chunks.length - 1);
    }
  } finally {
    if (!settled) plan.hold.release();
  }
}

/** What a reply streamed in a relay dialect needs. */
export interface DialectStreamPlan {
  readonly stream: DialectStream;
  readonly fault: FaultDecision;
  readonly hold: QuotaHold;
  readonly entry: Omit<BilledEntry, "yuan" | "refunded">;
}

/** Streams a reply in a relay dialect, billed and cut by faults as streamCompletion does. */
export async function streamDialect(response: ServerResponse, plan: DialectStreamPlan): Promise<void> {
  const { fault, stream } = plan;
  const { frames, finishIndex, end } = stream;
  const delayMs = fault.kind === "none" || fault.kind === "drop" ? fault.chunkDelayMs : 0;
  const writer = new SseWriter(response);
  writer.start();
  const cutIndex = fault.kind === "drop" ? Math.min(finishIndex, 1 + Math.floor(fault.cutAt * finishIndex)) : -1;
  let settled = false;
  try {
    if (delayMs === 0) {
      if (cutIndex === -1) {
        plan.hold.commit(plan.entry);
        settled = true;
        await writer.frames(frames, end);
        return;
      }
      await writer.frames(frames.slice(0, cutIndex), stream.cutEnd ?? false);
      if (stream.cutEnd === undefined) await writer.cut();
      return;
    }
    for (const [index, frame] of frames.entries()) {
      if (index === cutIndex) {
        if (stream.cutEnd === undefined) await writer.cut();
        else await writer.frames([], stream.cutEnd);
        return;
      }
      if (index > 0) await sleep(delayMs);
      if (!writer.open) return;
      const last = index === frames.length - 1;
      if (last) {
        plan.hold.commit(plan.entry);
        settled = true;
      }
      await writer.frames([frame], last ? end : false);
    }
  } finally {
    if (!settled) plan.hold.release();
  }
}

/** Sends a short, unbilled stream (a relay's report of a failure after its 200). */
export async function streamFrames(response: ServerResponse, stream: DialectStream): Promise<void> {
  const writer = new SseWriter(response);
  writer.start();
  await writer.frames(stream.frames, stream.end);
}
