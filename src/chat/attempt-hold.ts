import type { Dispatcher } from "undici";
import { RateLimitError, SvcFlowError } from "../errors.js";
import type { GatewayClient } from "../gateway/gateway-client.js";
import type { UsageRecorder, UsageReservation } from "../gateway/usage-recorder.js";
import type { CompletedReply } from "./collect-reply.js";
import { countReplyImages } from "./decode-image-reply.js";
import { modelIdempotencyKey } from "./model-idempotency-key.js";
import type { ChatWarning } from "./parameter-warning.js";
import type { RequestPlan } from "./plan-request.js";
import { checkUsage, emptyOutputError } from "./check-reply.js";

/** A concurrency slot, held until the reply (stream included) has ended. */
export interface Slot {
  /** `"limited"` when the gateway turned the attempt away for a rate or concurrency limit; true when
   * the source then lets fewer requests in at once. */
  release(outcome?: "done" | "limited"): boolean;
}

/** Where slots come from (the Scheduler). */
export interface SlotSource {
  acquire(model: string, options?: { signal?: AbortSignal }): Promise<Slot>;
}

/** What one attempt needs besides its plan. */
export interface AttemptContext {
  readonly client: GatewayClient;
  /** Default: no limit, no slot to wait for. */
  readonly slots?: SlotSource;
  readonly ledger?: UsageRecorder;
  readonly usageTags?: Readonly<Record<string, string>>;
  readonly onWarning: (warning: ChatWarning) => void;
  readonly signal?: AbortSignal;
  /** The caller's idempotency key for the call; each model's attempts send a key derived from it. */
  readonly idempotencyKey?: string;
  /** What the attempts are sent through, when not the client's own dispatcher. */
  readonly dispatcher?: Dispatcher;
}

const FREE_SLOT: Slot = { release: () => false };

/** The budget reservation and the slot of one attempt; ends exactly once. */
export class AttemptHold {
  readonly #plan: RequestPlan;
  readonly #context: AttemptContext;
  readonly #reservation: UsageReservation | undefined;
  readonly #slot: Slot;
  #done = false;
  #onEnd: (() => void) | undefined;

  private constructor(
    plan: RequestPlan,
    context: AttemptContext,
    reservation: UsageReservation | undefined,
    slot: Slot,
  ) {
    this.#plan = plan;
    this.#context = context;
    this.#reservation = reservation;
    this.#slot = slot;
  }

  /** Reserves budget for the exact wire request, then waits for a slot; nothing is sent yet. */
  static async take(plan: RequestPlan, context: AttemptContext): Promise<AttemptHold> {
    const reservation = context.ledger?.reserve({
      kind: "chat",
      request: plan.request,
      ...(context.usageTags === undefined ? {} : { tags: context.usageTags }),
    });
    try {
      if (reservation?.ready !== undefined) await reservation.ready;
      const slot =
        context.slots === undefined ? FREE_SLOT : await context.slots.acquire(plan.model.id, signalOf(context));
      return new AttemptHold(plan, context, reservation, slot);
    } catch (error) {
      reservation?.release();
      throw error;
    }
  }

  get done(): boolean {
    return this.#done;
  }

  /** Runs `cleanup` once the attempt has ended, however it ends. */
  onEnd(cleanup: () => void): void {
    this.#onEnd = cleanup;
  }

  #end(outcome?: "limited"): boolean {
    this.#done = true;
    const slowed = this.#slot.release(outcome);
    this.#onEnd?.();
    return slowed;
  }

  /** Settles a complete reply; throws EmptyOutputError (after settling: it was billed) when a
   * reasoning model said nothing. */
  complete(reply: CompletedReply): CompletedReply {
    if (this.#done) return reply;
    this.#end();
    const { model } = this.#plan;
    this.#reservation?.settle({
      status: "ok",
      servedModel: reply.servedModel,
      ...(reply.usage === undefined ? {} : { usage: reply.usage }),
      images: model.capabilities.imageGeneration ? countReplyImages(reply.content) : 0,
      ...(reply.ids.requestId === undefined ? {} : { requestId: reply.ids.requestId }),
      // A replay is settled like any answer: this attempt's own earlier try failed on our side
      // (settled "failed", 0), so the ledger counts the gateway's single bill here, once.
      ...(reply.replayed ? { replayed: true } : {}),
    });
    const warning = checkUsage(model.id, reply.usage);
    if (warning) this.#context.onWarning(warning);
    const empty = emptyOutputError(model, reply, this.#plan.outputLimit);
    if (empty) throw empty;
    return reply;
  }

  /** Settles a failed attempt (the gateway does not bill failures). */
  fail(error: unknown): void {
    if (this.#done) return;
    // A 429 for the key's rate or concurrency limit teaches the scheduler how many to send at once.
    if (error instanceof RateLimitError) error.paced = this.#end("limited");
    else this.#end();
    const requestId = error instanceof SvcFlowError ? error.requestId : undefined;
    this.#reservation?.settle({
      status: "failed",
      errorCode: error instanceof SvcFlowError ? error.code : "unknown_error",
      ...(requestId === undefined ? {} : { requestId }),
    });
  }
}

/** The context's signal as call options. */
export function signalOf(context: AttemptContext): { signal?: AbortSignal } {
  return context.signal === undefined ? {} : { signal: context.signal };
}

/** The client call options of one attempt: the signal, and the plan's model's idempotency key. */
export function attemptCallOptions(
  context: AttemptContext,
  plan: RequestPlan,
): { signal?: AbortSignal; idempotencyKey?: string; dispatcher?: Dispatcher } {
  const key = context.idempotencyKey;
  return {
    signal: context.signal,
    dispatcher: context.dispatcher,
    idempotencyKey: key === undefined ? undefined : modelIdempotencyKey(key, plan.model.id),
  };
}
