import { ConfigError, SvcFlowError } from "../../errors.js";
import { renderValue } from "../expression/index.js";
import type { MapStep } from "../schema/step-schemas.js";
import type { StepNode } from "../step-graph.js";
import { budgetStop, isAbort, NotStartedError, summarizeError, WaitingError } from "./error-summary.js";
import type { ErrorSummary } from "./journal-records.js";
import { expressionScope, type Halt, type RunState, type Scope } from "./run-state.js";
import { mapItemKey, mapKey, mapLineage } from "./container-keys.js";
import { keyFor } from "./reuse-step.js";
import { traced } from "./trace-step.js";

type ItemResult = {
  readonly output?: unknown;
  readonly error?: ErrorSummary;
  readonly stepKey?: string;
  readonly reused?: { readonly runDir: string; readonly runId: string };
};

/** Runs a list of steps in a scope (execute-steps.ts). */
export type ExecuteSteps = (
  nodes: readonly StepNode[],
  scope: Scope,
  state: RunState,
  prefix: string,
) => Promise<unknown>;

/**
 * Runs a map's steps once per item, at most `concurrency` items at a time; each finished item is
 * journaled, so a resumed run redoes only the rest. The output is one entry per item: the `output:`
 * expression, or else the last nested step's output. With onItemError `fail` the first failure fails
 * the map (items in flight finish); `skip` leaves failed items out; `collect` keeps `{ error }` in their place.
 * The map's outcome is its items': when another step halts the run, the map still finishes if all
 * its items did, and otherwise stops unfinished (NotStartedError) rather than failing with that error.
 * `executeSteps` runs each item's steps (passed in: a map's steps may hold maps). Each item's steps
 * depend on what `map:` read (the item scope's lineage); an item's key covers its steps' keys, and
 * the map's key its items' keys in order (step-key.ts).
 */
export async function runMap(
  node: StepNode,
  scope: Scope,
  state: RunState,
  key: string,
  executeSteps: ExecuteSteps,
): Promise<{ output: unknown[]; key: string }> {
  const step = node.step as MapStep;
  const items = renderValue(step.map, expressionScope(scope), [...node.path, "map"]);
  if (!Array.isArray(items)) {
    throw new ConfigError(
      `Step "${key}": map: must give a list, got ${items === null ? "null" : typeof items}. Check the expression, or give the list a schema in the step that makes it.`,
      {
        code: "invalid_step_input",
      },
    );
  }
  const mode = step.onItemError ?? "fail";
  const variable = step.as ?? "item";
  const journaled = state.replay.items.get(key);
  const results: Array<ItemResult | undefined> = items.map((_, index) => journaled?.get(index));
  let failed = results.filter((result) => result?.error !== undefined).length;
  let done = results.filter((result) => result !== undefined).length - failed;
  const progress = () => state.emit({ type: "map-progress", key, id: step.id, done, failed, total: items.length });
  progress();
  const concurrency = step.concurrency ?? state.concurrency;
  const mapState = withOwnHalt(state);
  // Set only by the map's own items; mapState.halt also shows a halt of the run from elsewhere.
  let failure: Halt | undefined;
  const last = node.children[node.children.length - 1]!.step.id;
  const lineage = mapLineage(step, (id) => scope.steps[id]?.key, scope.lineage);

  // Under the item's slot: its steps, up to their records queued on the journal.
  const workItem = async (item: unknown, index: number): Promise<ItemResult | undefined> => {
    if (results[index] !== undefined) return undefined;
    const itemKey = `${key}[${index}]`;
    if (mapState.halt !== undefined) throw new NotStartedError(itemKey);
    const itemScope: Scope = {
      ...scope,
      steps: { ...scope.steps },
      variables: { ...scope.variables, [variable]: item },
      lineage,
    };
    const itemState = withOwnHalt(mapState);
    try {
      await traced(
        itemState,
        { name: itemKey, kind: "item", input: { [variable]: item }, metadata: { index } },
        (inner) => executeSteps(node.children, itemScope, inner, `${itemKey}.`),
      );
      const output =
        step.output === undefined
          ? itemScope.steps[last]?.output
          : renderValue(step.output, expressionScope(itemScope), [...node.path, "output"]);
      const children = node.children.map((child) => itemScope.steps[child.step.id]);
      const itemStepKey = mapItemKey(
        Object.fromEntries(node.children.map((child, at) => [child.step.id, children[at]?.key])),
      );
      const from = children[0]?.reused;
      // Every step of the item taken from one earlier run: the item was reused as a whole.
      const reused =
        from !== undefined && children.every((child) => child?.reused?.runId === from.runId)
          ? { runDir: from.runDir, runId: from.runId }
          : undefined;
      return { output, stepKey: itemStepKey, ...(reused === undefined ? {} : { reused }) };
    } catch (error) {
      // Cut short by a halt (the map's or the run's), or waiting for a decision: unfinished, not failed, so resume runs it.
      if (error instanceof NotStartedError || error instanceof WaitingError) throw error;
      // A budget stop or a cancellation stops the whole run whatever onItemError says.
      const stop =
        budgetStop(error) !== undefined ? "budget" : isAbort(error, state.signal) ? "interrupted" : undefined;
      if (stop !== undefined || mode === "fail") {
        if (failure === undefined) {
          failure = { reason: stop ?? "failed", error };
          mapState.halt = failure;
        }
        throw error;
      }
      // A failed item runs again next time, so what reads the map does too.
      const failedKey = keyFor(
        { kind: "map-item", failed: true },
        lineage === undefined ? {} : { $map: lineage },
        true,
        `${state.runId}[${index}]`,
      );
      return { output: undefined, error: summarizeError(error), stepKey: failedKey };
    }
  };

  // Its record lands after its steps' (journal order), so once it is durable they are too, and only then does the
  // item count as finished.
  const finishItem = async (result: ItemResult, index: number): Promise<void> => {
    await state.journal.append({ type: "item-finished", key, index, at: new Date().toISOString(), ...result });
    results[index] = result;
    if (result.error === undefined) done++;
    else failed++;
    progress();
  };

  // `concurrency` workers take the items in order, each the next one as soon as its item's calls returned (its
  // record's write holds no slot); an item not started yet costs nothing while it waits.
  const outcomes: Array<Promise<void>> = [];
  let next = 0;
  const work = async (): Promise<void> => {
    while (next < items.length) {
      const index = next++;
      const worked = workItem(items[index], index);
      const outcome = worked.then((result) => (result === undefined ? undefined : finishItem(result, index)));
      // Read below, with every item's, once all have run; a failure is not unhandled meanwhile.
      outcome.catch(() => undefined);
      outcomes[index] = outcome;
      await worked.catch(() => undefined);
    }
  };
  await Promise.all(Array.from({ length: Math.min(concurrency, items.length) }, work));
  const settled = await Promise.allSettled(outcomes);
  const errors = settled.flatMap((outcome) => (outcome.status === "rejected" ? [outcome.reason as unknown] : []));
  if (failure !== undefined) {
    state.halt ??= failure;
    throw errors.find((error) => !(error instanceof NotStartedError)) ?? failure.error;
  }
  // Items waiting for a decision: the others are journaled, and the map finishes once they are answered.
  if (errors.some((error) => error instanceof WaitingError)) throw new WaitingError(key);
  // Stopped by a halt from outside the map: finished items are journaled, the rest resume later.
  if (results.includes(undefined)) throw new NotStartedError(key);
  if (!key.includes("[")) state.tallies.set(key, { key, succeeded: done, failed, total: items.length });
  // Skipping every item would hand later steps an empty list as if nothing had been asked.
  if (mode === "skip" && items.length > 0 && done === 0) {
    const first = results.find((result) => result?.error !== undefined)?.error;
    throw new SvcFlowError(
      "all_items_failed",
      `Every item of map "${key}" failed (0 of ${items.length} succeeded)${first ? `; the first: ${first.message}` : ""}`,
    );
  }
  const ownKey = mapKey(
    step,
    results.map((result) => result?.stepKey),
    lineage,
  );
  if (mode === "skip") {
    const kept = results.flatMap((result) =>
      result === undefined || result.error !== undefined ? [] : [result.output],
    );
    return { output: kept, key: ownKey };
  }
  return {
    output: results.map((result) => (result?.error !== undefined ? { error: result.error } : result?.output)),
    key: ownKey,
  };
}

/**
 * A view of `parent` whose halt is its own: failures inside one item halt that item (and, for fail
 * mode, the map) without halting the run, while a halt of the run is still seen inside.
 */
export function withOwnHalt(parent: RunState): RunState {
  let own: Halt | undefined;
  return Object.create(parent, {
    halt: {
      get: () => own ?? parent.halt,
      set: (value: Halt | undefined) => {
        own = value;
      },
      enumerable: true,
    },
  }) as RunState;
}
