import { z } from "zod";
import { costEntrySchema } from "../../cost/cost-entry.js";

// One line of journal.jsonl per finished unit of work. A unit counts as done only once its line is
// on disk, so everything resume needs is here: outputs, skips, music clip ids, costs.

const time = z.string();
const errorSummary = z.object({ code: z.string(), message: z.string() });

/** What the run started with; the first line. */
export const runStartedSchema = z.object({
  type: z.literal("run-started"),
  version: z.literal(1),
  runId: z.string(),
  name: z.string(),
  workflowHash: z.string(),
  /** The workflow file as given; a copy is kept in the run directory as workflow.yaml. */
  workflowFile: z.string(),
  /** Folder relative media paths are read from. */
  baseDir: z.string(),
  inputs: z.record(z.string(), z.unknown()),
  startedAt: time,
  budgetYuan: z.number().optional(),
  /** The process running it, so a listing can tell a run going from one whose process died. */
  pid: z.number().int().optional(),
  /** Run directories whose finished steps this run takes when their step keys match (`--reuse`, `rerun`). */
  reuse: z.array(z.string()).optional(),
  /** The step `rerun --from` runs again, with everything that reads it. */
  rerunFrom: z.string().optional(),
});

/** A leaf step's call as its key saw it (step-key.ts leafDefinition, without tools and settings). */
export const resolvedCallSchema = z.object({
  with: z.record(z.string(), z.unknown()),
  model: z.string().optional(),
  fallbacks: z.array(z.string()).optional(),
});

/** Where a reused step's result came from. */
export const reusedFromSchema = z.object({ runDir: z.string(), runId: z.string(), key: z.string() });

/** A music job a billed call started: what a resumed step looks up instead of paying again. */
export const musicJobSchema = z.object({
  /** The step instance that submitted it, e.g. `songs[2].song`. */
  key: z.string(),
  operation: z.string(),
  clipIds: z.array(z.string()),
  /** For a job a tool started (an agent's compose_music), the call it is kept under: its operation and input digest. */
  call: z.string().optional(),
});

/** A LangChain message as `toDict()` gives it (`mapStoredMessagesToChatMessages` reads it back). */
export const storedMessageSchema = z.object({ type: z.string(), data: z.record(z.string(), z.unknown()) });

/** An agent's tool call waiting for a person's approval. */
export const toolCallSchema = z.object({
  /** The agent step instance, e.g. `review` or `items[3].review`. */
  step: z.string(),
  turn: z.number().int().positive(),
  id: z.string(),
  name: z.string(),
  arguments: z.record(z.string(), z.unknown()),
});

/** The journal's record types. */
export const journalRecordSchema = z.discriminatedUnion("type", [
  runStartedSchema,
  z.object({
    type: z.literal("run-resumed"),
    at: time,
    budgetYuan: z.number().optional(),
    pid: z.number().int().optional(),
  }),
  z.object({
    type: z.literal("cost"),
    entry: costEntrySchema,
    /** The job a music call's bill paid for, in the bill's own line, so a kill never keeps one without the other. */
    musicJob: musicJobSchema.optional(),
    /** The Idempotency-Key of the answered call this entry settles: its `call-intent` has its bill. */
    idempotencyKey: z.string().optional(),
    /** Billed afresh when sent again after an earlier send of its key was lost (intent, no bill), by a gateway
     * that did not say it honours the key: the earlier send may have been billed too. */
    possibleDoubleBill: z.literal(true).optional(),
  }),
  // Written (durably) before a billable call is sent; the bill's cost record names the same idempotency key.
  z.object({
    type: z.literal("call-intent"),
    /** The step instance sending it, e.g. `lines[3].line`. */
    key: z.string(),
    idempotencyKey: z.string(),
    model: z.string().optional(),
    musicOperation: z.string().optional(),
    /** The budget hold of the call (its priced upper bound), when priced. */
    holdYuan: z.number().optional(),
    at: time,
  }),
  z.object({
    type: z.literal("step-finished"),
    key: z.string(),
    id: z.string(),
    kind: z.string(),
    output: z.unknown().optional(),
    startedAt: time,
    finishedAt: time,
    durationMs: z.number(),
    /** Calls sent for the step (retries included), and the models fallen back from. */
    attempts: z.number(),
    fallbacks: z.array(z.string()),
    model: z.string().optional(),
    costYuan: z.number(),
    unpriced: z.boolean(),
    /** What the result depends on (step-key.ts): a later run with the same key may take it. */
    stepKey: z.string().optional(),
    /** The call as keyed: `with:` rendered (media as content digests), the models after defaults; what `svc-flow diff` compares. */
    call: resolvedCallSchema.optional(),
    /** Taken from an earlier run instead of run (at no cost). */
    reused: reusedFromSchema.optional(),
  }),
  z.object({ type: z.literal("step-skipped"), key: z.string(), id: z.string(), at: time }),
  z.object({ type: z.literal("step-failed"), key: z.string(), id: z.string(), at: time, error: errorSummary }),
  z.object({
    type: z.literal("item-finished"),
    key: z.string(),
    index: z.number().int().nonnegative(),
    at: time,
    output: z.unknown().optional(),
    error: errorSummary.optional(),
    /** The item's key: its steps' keys (step-key.ts). */
    stepKey: z.string().optional(),
    /** Every step of the item was taken from this earlier run. */
    reused: z.object({ runDir: z.string(), runId: z.string() }).optional(),
  }),
  // Journals written before jobs went into their bill's cost line have the job on a line of its own.
  z.object({
    type: z.literal("music-submitted"),
    key: z.string(),
    operation: z.string(),
    clipIds: z.array(z.string()),
    requestId: z.string().optional(),
    at: time,
  }),
  // An agent step's model turn as it completed (the assistant message, with its tool calls and
  // usage): a resumed step takes it from here instead of asking (and paying) the model again.
  z.object({
    type: z.literal("agent-turn"),
    key: z.string(),
    /** 1-based model turn of the step's agent. */
    turn: z.number().int().positive(),
    message: storedMessageSchema,
    /** The call's request id, which names its bill (the cost line before this one). */
    requestId: z.string().optional(),
    costYuan: z.number().optional(),
    at: time,
  }),
  // A tool call's result (or the error the model was given), kept so a resumed step does not run it again.
  z.object({
    type: z.literal("agent-tool-result"),
    key: z.string(),
    turn: z.number().int().positive(),
    callId: z.string(),
    name: z.string(),
    message: storedMessageSchema,
    at: time,
  }),
  // An approval step asked its question (rendered), and when it stops waiting for an answer.
  z.object({
    type: z.literal("approval-requested"),
    key: z.string(),
    id: z.string(),
    prompt: z.string(),
    show: z.unknown().optional(),
    /** JSON Schema of the reply. */
    input: z.record(z.string(), z.unknown()).optional(),
    at: time,
    timeoutAt: time.optional(),
    onTimeout: z.enum(["reject", "approve"]).optional(),
    /** For an agent's tool call that needs approval: the step instance, its model turn and the call. */
    toolCall: toolCallSchema.optional(),
  }),
  // The answer (`svc-flow approve`, or the timeout's): what the step's output is made of.
  z.object({
    type: z.literal("approval-decided"),
    key: z.string(),
    approved: z.boolean(),
    input: z.unknown().optional(),
    note: z.string().optional(),
    by: z.string(),
    at: time,
  }),
  z.object({
    type: z.literal("run-finished"),
    /** waiting: the run can go no further until a person answers an approval step. */
    status: z.enum(["done", "stopped", "failed", "waiting"]),
    /** Why a stopped run stopped: its budget, or an interruption (a signal). */
    reason: z.enum(["budget", "interrupted"]).optional(),
    at: time,
    error: errorSummary.optional(),
    /** Item counts of the run's maps (and batch), so a listing or report can tell "0 of N succeeded" from done. */
    items: z
      .array(z.object({ key: z.string(), succeeded: z.number(), failed: z.number(), total: z.number() }))
      .optional(),
  }),
]);

/** One journal line. */
export type JournalRecord = z.infer<typeof journalRecordSchema>;
/** The first line of a journal. */
export type RunStarted = z.infer<typeof runStartedSchema>;
/** A journal record of one type. */
export type RecordOf<T extends JournalRecord["type"]> = Extract<JournalRecord, { type: T }>;
/** A music job as its bill's cost record names it. */
export type MusicJob = z.infer<typeof musicJobSchema>;
/** A music job as the journal keeps it, with the request id of the call that started (and paid for) it. */
export type JournaledMusicJob = MusicJob & { readonly requestId?: string };
/** An approval step's question as journaled. */
export type ApprovalRequest = RecordOf<"approval-requested">;
/** An approval step's answer as journaled. */
export type ApprovalDecision = RecordOf<"approval-decided">;
/** An agent's tool call as an approval request names it. */
export type JournaledToolCall = z.infer<typeof toolCallSchema>;
/** A LangChain message as journaled. */
export type JournaledMessage = z.infer<typeof storedMessageSchema>;
/** A leaf step's call as journaled with its key. */
export type ResolvedCall = z.infer<typeof resolvedCallSchema>;
/** Where a reused step's result came from. */
export type ReusedFrom = z.infer<typeof reusedFromSchema>;
/** An error as the journal keeps it. */
export type ErrorSummary = z.infer<typeof errorSummary>;
