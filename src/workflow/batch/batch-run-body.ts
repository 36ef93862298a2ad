import { access } from "node:fs/promises";
import { isAbsolute, resolve } from "node:path";
import { didYouMean } from "../../catalog/closest-name.js";
import { AbortedError, ConfigError } from "../../errors.js";
import { resolveInputs } from "../input-values.js";
import type { Workflow } from "../load/load-workflow.js";
import { isPlainObject } from "../plain-object.js";
import { budgetStop, isAbort, WaitingError } from "../run/error-summary.js";
import { executeSteps } from "../run/execute-steps.js";
import { renderOutputs } from "../run/execute-run.js";
import { withOwnHalt } from "../run/run-map.js";
import { parseStepKey } from "../report/step-order.js";
import type { RunBody } from "../run/run-options.js";
import type { Scope } from "../run/run-state.js";
import type { BatchBodyOptions, BatchRunOptions } from "./batch-options.js";
import { ITEM_RESULTS_FILE, readItemStates } from "./item-results.js";
import { ItemsError } from "./items-error.js";
import { itemsFormatOf, readItems, type Item, type ItemsFormat } from "./read-items.js";
import { readBatchFile, runBatch } from "./run-batch.js";

/** The step-key prefix of the steps of batch item N: `items[N].<step id>`. */
export const BATCH_KEY = "items";

/** Where a batch run's rows come from, and what each row becomes. */
export interface BatchSource {
  /** The JSONL or CSV file, absolute. */
  readonly itemsFile: string;
  readonly format: ItemsFormat;
  /** The `type: items` input each row becomes the value of; undefined: each row (an object) gives input values. */
  readonly inputName?: string;
}

/**
 * The batch a run maps over: `itemsFile` (from `--items`, relative to the current directory), or
 * the workflow's `type: items` input (a path relative to the workflow file). Undefined: not a batch.
 */
export function batchSourceOf(
  workflow: Workflow,
  inputs: Readonly<Record<string, unknown>>,
  itemsFile?: string,
): BatchSource | undefined {
  const declared = Object.entries(workflow.definition.inputs ?? {})
    .filter(([, spec]) => spec.type === "items")
    .map(([name]) => name);
  if (declared.length > 1) {
    throw new ConfigError(
      `${workflow.file} declares ${declared.length} items inputs (${declared.join(", ")}). A batch maps one file; keep one type: items input.`,
      {
        code: "invalid_workflow",
      },
    );
  }
  const inputName = declared[0];
  if (itemsFile !== undefined) {
    const file = resolve(itemsFile);
    return { itemsFile: file, format: itemsFormatOf(file), ...(inputName === undefined ? {} : { inputName }) };
  }
  if (inputName === undefined) return undefined;
  const value = inputs[inputName];
  if (typeof value !== "string") {
    throw new ConfigError(
      `Input "${inputName}" (type: items) needs a .jsonl or .csv file. Pass it with --input ${inputName}=FILE or --items FILE.`,
    );
  }
  const file = isAbsolute(value) ? value : resolve(workflow.baseDir, value);
  return { itemsFile: file, format: itemsFormatOf(file), inputName };
}

/**
 * A run's input values. When `itemsFile` rows give the inputs (the workflow has no items input),
 * required inputs may be left out here: each row must supply them, and is checked when it runs.
 */
export function resolveRunInputs(
  workflow: Workflow,
  given: Readonly<Record<string, unknown>> | undefined,
  itemsFile: string | undefined,
): Record<string, unknown> {
  const specs = workflow.definition.inputs ?? {};
  const rowsGiveInputs = itemsFile !== undefined && !Object.values(specs).some((spec) => spec.type === "items");
  if (!rowsGiveInputs) return resolveInputs(specs, given);
  return resolveInputs(
    Object.fromEntries(Object.entries(specs).map(([name, spec]) => [name, { ...spec, optional: true }])),
    given,
  );
}

/**
 * A run body that runs the workflow's steps once per row of the items file, streaming: each item's
 * steps are journaled under `items[N].`, its rendered `outputs:` is appended to outputs.jsonl, and
 * a resumed run skips items already there. The run's outputs.json then says where the items went.
 */
export function batchRunBody(source: BatchSource, options: BatchBodyOptions = {}): RunBody {
  return async (state, scope) => {
    const itemInputs = (item: Item): Record<string, unknown> => {
      if (source.inputName !== undefined) return { ...scope.inputs, [source.inputName]: item.value };
      if (!isPlainObject(item.value)) {
        throw new ConfigError(
          `Row ${item.index + 1} (line ${item.line}) is not an object of input values. Give each row the workflow's input names as keys, or declare a type: items input.`,
        );
      }
      return resolveInputs(state.workflow.definition.inputs, { ...scope.inputs, ...rowInputs(item.value) });
    };
    // A row's keys that name no input (a spreadsheet's other columns) are left out, each said once.
    const declared = Object.keys(state.workflow.definition.inputs ?? {});
    const leftOut = new Set<string>();
    const rowInputs = (row: Record<string, unknown>): Record<string, unknown> => {
      const values: Record<string, unknown> = {};
      for (const [name, value] of Object.entries(row)) {
        if (declared.includes(name)) values[name] = value;
        else if (!leftOut.has(name)) {
          leftOut.add(name);
          state.emit({
            type: "warning",
            key: BATCH_KEY,
            message:
              `${source.format === "csv" ? "Column" : "Key"} "${name}" of ${source.itemsFile} names no input of the workflow, so it is left out. ${didYouMean(name, declared)}`.trimEnd(),
          });
        }
      }
      return values;
    };
    // Once the run halts, items still going fail with "did not start": that is the halt, not their failure.
    const halts = (error: unknown) =>
      state.halt !== undefined || budgetStop(error) !== undefined || isAbort(error, state.signal);
    const summary = await runBatch({
      itemsFile: source.itemsFile,
      format: source.format,
      runDir: state.runDir,
      concurrency: options.concurrency ?? state.concurrency,
      onItemError: options.onItemError ?? "collect",
      signal: state.signal,
      haltsBatch: halts,
      // A row waiting for a decision is neither done nor failed: the run ends waiting, one decision per row.
      waits: (error) => error instanceof WaitingError,
      onProgress: (progress) => state.emit({ type: "map-progress", key: BATCH_KEY, id: BATCH_KEY, ...progress }),
      runItem: async (item, _signal, release) => {
        const itemState = withOwnHalt(state);
        const itemScope: Scope = { inputs: itemInputs(item), run: scope.run, steps: {}, variables: {} };
        try {
          const { durable } = await executeSteps(
            state.workflow.graph,
            itemScope,
            itemState,
            `${BATCH_KEY}[${item.index}].`,
          );
          // The item's calls are done: the next row starts while this one waits for its fsync.
          release();
          // outputs.jsonl counts the item done: its steps and their bills are on disk first.
          await durable;
        } catch (error) {
          // A budget stop or an interruption stops the run, not just this item.
          if (halts(error))
            state.halt ??= itemState.halt ?? { reason: budgetStop(error) ? "budget" : "interrupted", error };
          throw error;
        }
        return renderOutputs(state.workflow, itemScope);
      },
    });
    if (summary.stopped) {
      state.halt ??= { reason: "interrupted", error: state.signal.reason ?? new AbortedError() };
      throw state.halt.error;
    }
    if (summary.waiting > 0) throw new WaitingError(BATCH_KEY);
    state.tallies.set(BATCH_KEY, {
      key: BATCH_KEY,
      succeeded: summary.done,
      failed: summary.failed,
      total: summary.total,
    });
    return { items: { file: ITEM_RESULTS_FILE, total: summary.total, done: summary.done, failed: summary.failed } };
  };
}

/** The body of a run: a batch body when the run has items (the file checked to exist), else undefined (every step once). */
export async function batchBodyFor(
  workflow: Workflow,
  inputs: Readonly<Record<string, unknown>>,
  options: BatchRunOptions,
): Promise<RunBody | undefined> {
  const source = batchSourceOf(workflow, inputs, options.items);
  if (source === undefined) return undefined;
  await access(source.itemsFile).catch((error: unknown) => {
    throw new ItemsError(
      source.itemsFile,
      0,
      "No such file. Check the path (--items is relative to the current directory, a type: items default to the workflow file).",
      {
        cause: error,
      },
    );
  });
  if (source.inputName === undefined) await checkRowInputs(workflow, inputs, source);
  return batchRunBody(source, options);
}

/**
 * Refuses, before anything is paid, rows that give input values by name but no value for a required
 * input that `--input` and defaults leave open: a CSV's header (or a JSONL file's first row) names
 * the fields every row has, and a misspelt column would otherwise fail every row.
 */
async function checkRowInputs(
  workflow: Workflow,
  inputs: Readonly<Record<string, unknown>>,
  source: BatchSource,
): Promise<void> {
  let first: Item | undefined;
  // Unreadable rows are each row's own failure, as when the batch runs.
  for await (const item of readItems(source.itemsFile, { format: source.format, onInvalidItem: () => {} })) {
    first = item;
    break;
  }
  if (first === undefined || !isPlainObject(first.value)) return;
  const columns = Object.keys(first.value);
  const open = Object.entries(workflow.definition.inputs ?? {})
    .filter(([name, spec]) => spec.optional !== true && !Object.hasOwn(inputs, name) && !columns.includes(name))
    .map(([name]) => name);
  if (open.length === 0) return;
  const where = source.format === "csv" ? "No column of the header" : "The first row has no key that";
  throw new ItemsError(
    source.itemsFile,
    source.format === "csv" ? 1 : first.line,
    `${open.map((name) => `${where} gives the required input "${name}". ${didYouMean(name, columns)}`).join("")}Name ${source.format === "csv" ? "a column" : "a key"} after it, or pass --input ${open[0]}=VALUE.`,
  );
}

/**
 * The step instances of the rows a batch run in `runDir` finished, which a resume never runs again
 * (keys `items[N].…` of done rows); undefined when the run is not a batch.
 */
export async function finishedRowSteps(runDir: string): Promise<((key: string) => boolean) | undefined> {
  if ((await readBatchFile(runDir)) === undefined) return undefined;
  const states = await readItemStates(runDir);
  return (key) => {
    const [row] = parseStepKey(key);
    return row?.id === BATCH_KEY && row.index !== undefined && states.isDone(row.index);
  };
}

/** The body of a resumed run: the batch it started (batch.json says which file), else undefined. */
export async function resumedBatchBody(
  runDir: string,
  workflow: Workflow,
  inputs: Readonly<Record<string, unknown>>,
  options: BatchBodyOptions,
): Promise<RunBody | undefined> {
  const batch = await readBatchFile(runDir);
  return batchBodyFor(workflow, inputs, {
    ...options,
    ...(batch?.itemsFile === undefined ? {} : { items: batch.itemsFile }),
  });
}
