import type { PriceTable } from "../catalog/prices.js";
import type { OperationOutcome, PlannedOperation } from "../gateway/usage-recorder.js";
import type { CostEntry } from "./cost-entry.js";
import type { OperationEstimate } from "./estimate-operation.js";
import { isImageModel, priceChat, priceMusic } from "./price-operation.js";

/** Turns a settled operation into a ledger entry, priced by the gateway's rule. */
export function buildEntry(
  operation: PlannedOperation,
  estimate: OperationEstimate,
  outcome: OperationOutcome,
  context: { prices: PriceTable; tags: Readonly<Record<string, string>>; time: Date },
): CostEntry {
  const common = {
    time: context.time.toISOString(),
    status: outcome.status,
    errorCode: outcome.errorCode,
    requestId: outcome.requestId,
    replayed: outcome.replayed === true ? true : undefined,
    tags: context.tags,
    estimateYuan: estimate.yuan,
  };
  if (operation.kind === "music") {
    const cost = priceMusic(operation.operation, context.prices);
    // A music call that failed is not billed, and a job that fails later is refunded (spec 7).
    const yuan = outcome.status === "ok" ? cost.yuan : 0;
    return withFlags(common, {
      kind: "music",
      musicOperation: operation.operation,
      promptTokens: 0,
      completionTokens: 0,
      reasoningTokens: 0,
      images: 0,
      yuan,
      priceSource: cost.source,
    });
  }

  const request = operation.request;
  const imageModel = isImageModel(request.model, context.prices);
  const usage = outcome.usage;
  // An answered call always has usage; when it is missing (a stream without its usage chunk) the
  // gateway still billed, so the entry takes the reserved bound and says so rather than logging 0.
  const usageMissing = outcome.status === "ok" && (usage === undefined || (imageModel && outcome.images === undefined));
  const promptTokens = usage?.prompt_tokens ?? (usageMissing ? estimate.promptTokens : 0);
  const completionTokens = usage?.completion_tokens ?? (usageMissing ? estimate.maxOutputTokens : 0);
  const images = outcome.images ?? (usageMissing && imageModel ? estimate.images : 0);
  const billed = outcome.status === "ok" || usage !== undefined || images > 0;
  const cost = priceChat(request.model, { promptTokens, completionTokens, images }, context.prices);
  return withFlags(common, {
    kind: imageModel ? "image" : "chat",
    modelRequested: request.model,
    modelServed: outcome.servedModel,
    promptTokens,
    completionTokens,
    reasoningTokens: usage?.completion_tokens_details?.reasoning_tokens ?? 0,
    images,
    // Nothing billed costs exactly 0, priced or not; billed usage without a price stays undefined.
    yuan: billed ? cost.yuan : 0,
    priceSource: cost.source,
    usageMissing: usageMissing || undefined,
  });
}

/** The entry of a replay whose billed request this ledger already counted: the call happened, the
 * bill did not happen again. */
export function alreadyRecordedEntry(entry: CostEntry): CostEntry {
  const { usageMissing: _missing, exceededEstimate: _exceeded, ...rest } = entry;
  return {
    ...rest,
    promptTokens: 0,
    completionTokens: 0,
    reasoningTokens: 0,
    images: 0,
    yuan: 0,
    replayed: true,
    alreadyRecorded: true,
  };
}

// The entry is `{ ...common, ...fields }` without its undefined fields.
function withFlags(common: Partial<CostEntry>, fields: Partial<CostEntry>): CostEntry {
  const entry: Record<string, unknown> = {};
  for (const source of [common, fields] as Record<string, unknown>[]) {
    for (const key in source) {
      const value = source[key];
      if (value !== undefined) entry[key] = value;
      else delete entry[key];
    }
  }
  const { yuan, estimateYuan } = entry as Partial<CostEntry>;
  if (yuan !== undefined && estimateYuan !== undefined && yuan > estimateYuan + 1e-9) entry.exceededEstimate = true;
  return entry as CostEntry;
}
