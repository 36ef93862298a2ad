import type { PriceOverrides } from "../../catalog/prices.js";
import { roundYuan } from "../../catalog/prices.js";
import { CostLedger } from "../../cost/cost-ledger.js";
import { ConfigError } from "../../errors.js";
import { resolveInputs } from "../../workflow/input-values.js";
import type { Workflow } from "../../workflow/load/load-workflow.js";
import type { FinishedStep } from "../../workflow/run/finished-steps.js";
import { childSteps, isMapStep, isParallelStep, type Step } from "../../workflow/schema/step-schemas.js";
import type { LeafKind } from "../../workflow/schema/with-schemas.js";
import type { UnpricedUse } from "./estimate-chat-calls.js";
import type { EstimateContext, VariableBound } from "./estimate-context.js";
import { estimateLeaf } from "./estimate-leaf.js";
import { knownCondition } from "./known-condition.js";
import { planReuse, type ReusedInstance, type ReusePlan } from "./reuse-plan.js";
import { mapItems } from "./step-output-bound.js";

/** The bound of one leaf step over the whole run. */
export interface StepEstimate {
  /** The step's ids from the top, e.g. `posters.poster`. */
  readonly step: string;
  readonly kind: LeafKind;
  readonly models: readonly string[];
  /** Most calls and priced yuan of one run of the step (one item, inside maps). */
  readonly callsEach: number;
  readonly yuanEach: number;
  /** How often the step runs: 1, or the product of its maps' item counts; undefined when only the run knows. */
  readonly times: number | undefined;
  readonly calls: number | undefined;
  readonly maxYuan: number | undefined;
  /** Models (or music operations) without a price, per run of the step. */
  readonly unpriced: readonly UnpricedUse[];
  /** False when the figure rests on something only the run knows (see notes). */
  readonly upperBound: boolean;
  /** With `--reuse`: instances taken from earlier runs at ¥0 (not in `times`, `calls` and `maxYuan`). */
  readonly reused?: number;
  readonly notes: readonly string[];
}

/** What is known about a map's items, and what one item costs. */
export interface MapEstimate {
  readonly step: string;
  readonly count?: number;
  /** False when `count` is a most (a schema's maxItems) rather than the number. */
  readonly exact: boolean;
  readonly source: string;
  /** Priced bound of one item's steps. */
  readonly yuanPerItem: number;
}

/** A workflow's cost bound before it runs. */
export interface WorkflowEstimate {
  readonly workflow: string;
  readonly steps: readonly StepEstimate[];
  readonly maps: readonly MapEstimate[];
  /** Sum of the priced bounds of every step whose run count is known. */
  readonly maxYuan: number;
  readonly calls: number;
  /** True when every step's run count is known (no map of unknown length). */
  readonly complete: boolean;
  /** True when `maxYuan` holds whatever the run does: complete, and no step rests on an assumption. */
  readonly upperBound: boolean;
  /** Unpriced use over the steps whose run count is known. */
  readonly unpriced: readonly UnpricedUse[];
  readonly budget?: { readonly maxYuan: number; readonly exceeded: boolean };
  /** With `--reuse`: the runs named, and the leaf step instances the run would take from them at ¥0. */
  readonly reuse?: { readonly runDirs: readonly string[]; readonly reused: readonly ReusedInstance[] };
  /** Where the prices came from: the published table, or a price file laid over it (its path as given). */
  readonly prices: { readonly source: "published" } | { readonly source: "file"; readonly file: string };
  readonly notes: readonly string[];
}

/** Options of estimateWorkflow. */
export interface EstimateWorkflowOptions {
  /** `--input k=v` values (text, converted to the declared types). */
  readonly inputs?: Readonly<Record<string, string>>;
  /** Prices laid over the published ones (a price file). */
  readonly prices?: PriceOverrides;
  /** The price file `prices` was read from, as the user named it; the estimate says so. */
  readonly pricesFile?: string;
  /** Finished steps of earlier runs (finishedStepsByKey) that a run with `--reuse` would take. */
  readonly reuse?: { readonly runDirs: readonly string[]; readonly finished: ReadonlyMap<string, FinishedStep> };
}

/** Prices a loaded workflow without calling anything: per step and in total, with what is unpriced or unknown. */
export async function estimateWorkflow(
  workflow: Workflow,
  options: EstimateWorkflowOptions = {},
): Promise<WorkflowEstimate> {
  const { inputs, missingInputs } = knownInputs(workflow, options.inputs ?? {});
  const steps = new Map<string, Step>();
  const index = (list: readonly Step[]): void =>
    list.forEach((step) => (steps.set(step.id, step), index(childSteps(step))));
  index(workflow.definition.steps);
  const context: EstimateContext = {
    workflow,
    ledger: new CostLedger(options.prices === undefined ? {} : { prices: options.prices }),
    inputs,
    missingInputs,
    steps,
    variables: new Map(),
  };
  const rows: StepEstimate[] = [];
  const maps: MapEstimate[] = [];
  const reuse =
    options.reuse === undefined
      ? undefined
      : await planReuse(workflow, inputs, missingInputs, options.reuse.finished, options.reuse.runDirs);
  await walk(workflow.definition.steps, { prefix: "", times: 1, context, rows, maps, reuse });

  const known = rows.filter((row) => row.times !== undefined);
  const maxYuan = roundYuan(known.reduce((sum, row) => sum + (row.maxYuan ?? 0), 0));
  const complete = known.length === rows.length;
  const budget = workflow.definition.budget;
  return {
    workflow: workflow.name,
    steps: rows,
    maps,
    maxYuan,
    calls: known.reduce((sum, row) => sum + (row.calls ?? 0), 0),
    complete,
    upperBound: complete && rows.every((row) => row.upperBound),
    unpriced: addUnpriced(known),
    ...(budget === undefined ? {} : { budget: { maxYuan: budget.maxYuan, exceeded: maxYuan > budget.maxYuan } }),
    ...(reuse === undefined ? {} : { reuse: { runDirs: reuse.runDirs, reused: reuse.reused } }),
    prices:
      options.prices === undefined
        ? { source: "published" }
        : { source: "file", file: options.pricesFile ?? "the given price overrides" },
    notes: workflowNotes(workflow, missingInputs),
  };
}

interface Walk {
  readonly prefix: string;
  readonly times: number | undefined;
  readonly context: EstimateContext;
  readonly rows: StepEstimate[];
  readonly maps: MapEstimate[];
  readonly reuse: ReusePlan | undefined;
}

// Returns the priced bound of one run of the list (one item's worth inside a map).
async function walk(list: readonly Step[], place: Walk): Promise<number> {
  let yuan = 0;
  for (const step of list) {
    const key = place.prefix === "" ? step.id : `${place.prefix}.${step.id}`;
    const condition = knownCondition(step.if, place.context);
    // A step whose `if:` is false with these inputs is skipped, and so is everything in it.
    const here: Walk = { ...place, prefix: key, times: condition === false ? 0 : place.times };
    const runs = condition === false ? 0 : 1;
    if (isMapStep(step)) {
      const items = mapItems(step, place.context);
      const variable: VariableBound =
        items.items !== undefined
          ? { items: items.items }
          : items.itemTokens === undefined
            ? {}
            : { tokens: items.itemTokens };
      const variables = new Map(place.context.variables).set(step.as ?? "item", variable);
      const times = here.times === undefined || items.count === undefined ? undefined : here.times * items.count;
      const mapIndex = place.maps.length;
      place.maps.push({ step: key, exact: items.exact, source: items.source, yuanPerItem: 0 });
      const perItem = await walk(step.steps, { ...here, times, context: { ...place.context, variables } });
      place.maps[mapIndex] = {
        step: key,
        ...(items.count === undefined ? {} : { count: items.count }),
        exact: items.exact,
        source: items.source,
        yuanPerItem: perItem,
      };
      yuan += runs * perItem * (items.count ?? 1);
    } else if (isParallelStep(step)) {
      yuan += runs * (await walk(step.parallel, here));
    } else {
      const leaf = await estimateLeaf(step, place.context);
      const ifNote =
        condition === undefined
          ? [`runs only if ${String(step.if)}; counted as if it runs`]
          : condition === false
            ? [`skipped: its if: ${String(step.if)} is false with these inputs`]
            : [];
      // Instances taken from earlier runs cost nothing and call nothing.
      const reused = place.reuse?.byStep.get(key) ?? 0;
      const times = here.times === undefined ? undefined : Math.max(0, here.times - reused);
      place.rows.push({
        step: key,
        kind: step.uses,
        models: leaf.models,
        callsEach: leaf.calls,
        yuanEach: leaf.yuan,
        times,
        calls: times === undefined ? undefined : times * leaf.calls,
        maxYuan: times === undefined ? undefined : roundYuan(times * leaf.yuan),
        unpriced: leaf.unpriced,
        // Every instance reused: its ¥0 is exact, whatever the bound of a new one rests on.
        upperBound: leaf.upperBound || (times === 0 && reused > 0),
        ...(place.reuse === undefined ? {} : { reused }),
        notes: [...ifNote, ...leaf.notes],
      });
      yuan += runs * leaf.yuan;
    }
  }
  return roundYuan(yuan);
}

// Given values are converted and checked like `svc-flow run` does; a required input left out is not
// an error here: what reads it is simply not counted.
function knownInputs(
  workflow: Workflow,
  given: Readonly<Record<string, string>>,
): { inputs: Record<string, unknown>; missingInputs: Set<string> } {
  const specs = workflow.definition.inputs ?? {};
  for (const name of Object.keys(given)) {
    if (!Object.hasOwn(specs, name)) {
      const names = Object.keys(specs);
      throw new ConfigError(
        `Unknown input "${name}". ${names.length > 0 ? `Inputs: ${names.join(", ")}.` : "The workflow declares no inputs."}`,
      );
    }
  }
  const inputs: Record<string, unknown> = {};
  const missingInputs = new Set<string>();
  for (const [name, spec] of Object.entries(specs)) {
    // An items input holds one row of a file per run: its value is only known then.
    if (spec.type === "items") missingInputs.add(name);
    else if (Object.hasOwn(given, name))
      Object.assign(inputs, resolveInputs({ [name]: spec }, { [name]: given[name] }));
    else if (spec.default !== undefined) inputs[name] = spec.default;
    else if (spec.optional !== true) missingInputs.add(name);
  }
  return { inputs, missingInputs };
}

function addUnpriced(rows: readonly StepEstimate[]): UnpricedUse[] {
  const totals = new Map<string, { calls: number; promptTokens: number; outputTokens: number }>();
  for (const row of rows) {
    for (const use of row.unpriced) {
      const times = row.times ?? 0;
      const total = totals.get(use.name) ?? { calls: 0, promptTokens: 0, outputTokens: 0 };
      totals.set(use.name, {
        calls: total.calls + use.calls * times,
        promptTokens: total.promptTokens + use.promptTokens * times,
        outputTokens: total.outputTokens + use.outputTokens * times,
      });
    }
  }
  return [...totals].filter(([, total]) => total.calls > 0).map(([name, total]) => ({ name, ...total }));
}

function workflowNotes(workflow: Workflow, missingInputs: ReadonlySet<string>): string[] {
  const notes: string[] = [];
  const specs = workflow.definition.inputs ?? {};
  for (const name of missingInputs) {
    if (specs[name]?.type !== "items")
      notes.push(`input ${name} is required and was not given (--input ${name}=VALUE): what reads it is not counted`);
  }
  for (const [name, spec] of Object.entries(specs)) {
    if (spec.type === "items")
      notes.push(
        `the workflow runs once per row of input ${name} (svc-flow run --items FILE): these figures are for one row, and what reads the row is not counted`,
      );
  }
  return notes;
}
