import type { CostEntry } from "../../cost/cost-entry.js";
import type { CostTotals } from "../../cost/summarize-entries.js";
import type { ErrorSummary, RecordOf, ReusedFrom } from "../run/journal-records.js";
import type { RunSummary } from "../run/run-summary.js";
import { childSteps, isMapStep, type Step } from "../schema/step-schemas.js";
import { sortByStepKey, workflowOrder } from "./step-order.js";

/** How one step instance ended, as far as the journal knows. */
export type StepRowStatus = "done" | "failed" | "skipped" | "not run";

/** The map items of a map step, gathered from its `item-finished` records. */
export interface MapItems {
  readonly done: number;
  readonly failed: number;
  /** Known once the map finished (every item is journaled then). */
  readonly total?: number;
  readonly errors: ReadonlyArray<{ readonly index: number; readonly error: ErrorSummary }>;
}

/** One step instance (`poster`, `posters[2].poster`) of the report's step table. */
export interface StepRow {
  readonly key: string;
  readonly id: string;
  readonly kind: string;
  readonly status: StepRowStatus;
  readonly startedAt?: string;
  readonly durationMs?: number;
  readonly modelAsked?: string;
  readonly modelServed?: string;
  /** Calls sent (retries included, every run attempt counted) and how many of them failed. */
  readonly attempts: number;
  readonly failedAttempts: number;
  readonly fallbacks: readonly string[];
  /** The step's totals in the ledger (`byTag.step`); undefined when it made no billed call. */
  readonly cost?: CostTotals;
  readonly output?: unknown;
  readonly error?: ErrorSummary;
  readonly items?: MapItems;
  /** Set when the result was taken from an earlier run (`--reuse`, `rerun`). */
  readonly reused?: ReusedFrom;
}

type Ended = RecordOf<"step-finished"> | RecordOf<"step-failed"> | RecordOf<"step-skipped">;

/**
 * The step instances of a run in the file's order (map items by index), from the whole journal: a later record of
 * a key (a resumed run finishing what failed before) replaces an earlier one. Top-level steps the
 * run never reached are listed as "not run".
 */
export function collectStepRows(summary: RunSummary): StepRow[] {
  const ended = new Map<string, Ended>();
  const items = new Map<string, Map<number, RecordOf<"item-finished">>>();
  for (const record of summary.journal) {
    if (record.type === "step-finished" || record.type === "step-failed" || record.type === "step-skipped")
      ended.set(record.key, record);
    if (record.type === "item-finished") {
      const byIndex = items.get(record.key) ?? new Map<number, RecordOf<"item-finished">>();
      byIndex.set(record.index, record);
      items.set(record.key, byIndex);
    }
  }
  const entriesByStep = new Map<string, CostEntry[]>();
  for (const entry of summary.entries) {
    const key = entry.tags.step;
    if (key === undefined) continue;
    const list = entriesByStep.get(key) ?? [];
    list.push(entry);
    entriesByStep.set(key, list);
  }
  const rows = [...ended.values()].map((record) =>
    toRow(record, entriesByStep.get(record.key) ?? [], summary, items.get(record.key)),
  );
  // A batch journals its steps per item (`items[3].poster`), so a top-level id seen inside an item was reached.
  const reached = new Set([...ended.keys()].map((key) => key.slice(key.lastIndexOf("].") + 1).replace(/^\./, "")));
  for (const node of summary.workflow.graph) {
    if (ended.has(node.step.id) || reached.has(node.step.id)) continue;
    rows.push({
      key: node.step.id,
      id: node.step.id,
      kind: stepKind(node.step),
      status: "not run",
      attempts: 0,
      failedAttempts: 0,
      fallbacks: [],
    });
  }
  const order = workflowOrder(summary.workflow.definition.steps);
  return sortByStepKey(order, rows, (row) => row.key);
}

function toRow(
  record: Ended,
  entries: readonly CostEntry[],
  summary: RunSummary,
  itemRecords: Map<number, RecordOf<"item-finished">> | undefined,
): StepRow {
  // One pass over the step's entries: refunds are not calls; the last ok call is the one that served.
  let attempts = 0;
  let failedAttempts = 0;
  let first: CostEntry | undefined;
  let served: CostEntry | undefined;
  for (const entry of entries) {
    if (entry.status === "refunded") continue;
    attempts++;
    first ??= entry;
    if (entry.status === "failed") failedAttempts++;
    else if (entry.status === "ok") served = entry;
  }
  const cost = summary.cost.byTag.step?.[record.key];
  const modelAsked = modelOf(first);
  const base = {
    key: record.key,
    id: record.id,
    attempts,
    failedAttempts,
    ...(modelAsked === undefined ? {} : { modelAsked }),
    ...(cost === undefined ? {} : { cost }),
    ...(itemRecords === undefined ? {} : { items: mapItems(itemRecords, record.type === "step-finished") }),
  };
  switch (record.type) {
    case "step-finished": {
      const modelServed = served?.modelServed ?? record.model ?? modelOf(served);
      return {
        kind: record.kind,
        status: "done",
        startedAt: record.startedAt,
        durationMs: record.durationMs,
        fallbacks: record.fallbacks,
        ...(modelServed === undefined ? {} : { modelServed }),
        output: record.output,
        ...(record.reused === undefined ? {} : { reused: record.reused }),
        ...base,
        attempts: Math.max(attempts, record.attempts),
      };
    }
    case "step-failed":
      return {
        kind: kindOf(summary, record.id),
        status: "failed",
        startedAt: first?.time ?? record.at,
        fallbacks: [],
        error: record.error,
        ...base,
      };
    case "step-skipped":
      return { kind: kindOf(summary, record.id), status: "skipped", startedAt: record.at, fallbacks: [], ...base };
  }
}

/** The model an entry asked for; music calls, which name none, by their operation. */
function modelOf(entry: CostEntry | undefined): string | undefined {
  if (entry?.kind === "music") return `music:${entry.musicOperation ?? "unknown"}`;
  return entry?.modelRequested;
}

function mapItems(records: Map<number, RecordOf<"item-finished">>, finished: boolean): MapItems {
  const all = [...records.values()].sort((left, right) => left.index - right.index);
  const errors = all.flatMap((record) =>
    record.error === undefined ? [] : [{ index: record.index, error: record.error }],
  );
  return {
    done: all.length - errors.length,
    failed: errors.length,
    ...(finished ? { total: all.length } : {}),
    errors,
  };
}

/** A step's kind from the file, for records that do not carry it. */
function kindOf(summary: RunSummary, id: string): string {
  const found = findStep(summary.workflow.definition.steps, id);
  return found === undefined ? "step" : stepKind(found);
}

/** A step's kind: its `uses:`, or `map` / `parallel` for a container. */
export function stepKind(step: Step): string {
  if ("uses" in step) return step.uses;
  return isMapStep(step) ? "map" : "parallel";
}

function findStep(steps: readonly Step[], id: string): Step | undefined {
  for (const step of steps) {
    if (step.id === id) return step;
    const found = findStep(childSteps(step), id);
    if (found !== undefined) return found;
  }
  return undefined;
}
