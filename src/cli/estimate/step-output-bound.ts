import { countTextTokens } from "../../catalog/tokens.js";
import { parseTemplate, referencesOf, stringifyValue } from "../../workflow/expression/index.js";
import { isMapStep, isParallelStep, type ChatStep, type MapStep } from "../../workflow/schema/step-schemas.js";
import { planModels } from "../../workflow/step-models.js";
import { planAgent } from "./agent-plan.js";
import type { EstimateContext } from "./estimate-context.js";
import { knownCondition } from "./known-condition.js";
import { outputBudget, stepLimit } from "./output-budget.js";

/** Tokens around a chat reply in a step's output (`{ "text": ..., "model": ... }`). */
const WRAPPER_TOKENS = 24;
/** Tokens of an artifact reference (path, mime, bytes, size, model) as text. */
const ARTIFACT_TOKENS = 96;
/** Tokens of one music clip's description (id, title, duration, artifact) as text. */
const CLIP_TOKENS = 96;

/** What is known about a map's list before the run. */
export interface MapItems {
  /** How many items; undefined when only the run knows. */
  readonly count?: number;
  /** False when `count` is a most (a schema's maxItems), not the exact number. */
  readonly exact: boolean;
  /** The items themselves, when the list is written in the file or comes from a known input. */
  readonly items?: readonly unknown[];
  /** Most tokens one item takes as text, when the items are not known. */
  readonly itemTokens?: number;
  /** Where the count comes from, for people. */
  readonly source: string;
}

/** Most tokens a step's output (or a part of it, `path` after `output`) takes as text; undefined when unbounded. */
export function outputTokenBound(
  id: string,
  path: ReadonlyArray<string | number>,
  context: EstimateContext,
): number | undefined {
  const step = context.steps.get(id);
  if (step === undefined) return undefined;
  // A step skipped for these inputs outputs nothing.
  if (knownCondition(step.if, context) === false) return 0;
  if (isParallelStep(step)) return undefined;
  if (isMapStep(step)) {
    const items = mapItems(step, context);
    const last = step.steps.at(-1);
    if (items.count === undefined || step.output !== undefined || last === undefined) return undefined;
    const each = outputTokenBound(last.id, [], context);
    return each === undefined ? undefined : items.count * (each + 1) + 2;
  }
  switch (step.uses) {
    case "chat": {
      const textOnly = path[0] === "text";
      if (step.with.tools !== undefined && step.with.tools.length > 0 && !textOnly) return undefined;
      const tokens = chatOutputTokens(step, context);
      return tokens === undefined ? undefined : tokens + (textOnly ? 0 : WRAPPER_TOKENS);
    }
    case "agent":
      return path[0] === "text" ? planAgent(step, context).maxTokens : undefined;
    case "image":
      return ARTIFACT_TOKENS;
    case "music":
      return step.with.operation === "lyrics" ? undefined : 2 * CLIP_TOKENS;
    case "tool":
      return undefined;
  }
}

/** The largest output budget over a chat step's models; undefined when its model is only known at run time. */
export function chatOutputTokens(step: ChatStep, context: EstimateContext): number | undefined {
  const { model, fallbacks } = planModels(step, context.workflow.definition.defaults);
  if (model === undefined || parseTemplate(model).parts.some((part) => part.kind === "expression")) return undefined;
  const { limit } = stepLimit(step.with.maxTokens, context.workflow.definition.defaults?.maxTokens, context);
  return Math.max(...[model, ...fallbacks].map((candidate) => outputBudget(context.ledger, candidate, limit).tokens));
}

/** The items of a map, as far as they are known before the run: a list in the file, a known input, or a schema's maxItems. */
export function mapItems(step: MapStep, context: EstimateContext): MapItems {
  if (Array.isArray(step.map))
    return { count: step.map.length, exact: true, items: step.map, source: "the list in the file" };
  const single = parseTemplate(step.map).single;
  const [reference, ...others] = single === undefined ? [] : referencesOf(single);
  const whole =
    single !== undefined &&
    reference !== undefined &&
    others.length === 0 &&
    single.source.slice(single.start, single.end).trim() === reference.text;
  if (!whole || reference.dynamic) return { exact: false, source: `${step.map.trim()} (known when the step runs)` };
  const [first, second] = reference.path;
  if (reference.root === "inputs" && typeof first === "string" && reference.path.length === 1) {
    if (context.missingInputs.has(first)) return { exact: false, source: `input ${first} (not given)` };
    const value = context.inputs[first];
    if (Array.isArray(value)) return { count: value.length, exact: true, items: value, source: `input ${first}` };
    return { exact: false, source: `input ${first} (not a list)` };
  }
  if (reference.root === "steps" && typeof first === "string" && second === "output" && reference.path.length === 2) {
    const itemTokens = outputTokenBound(first, [], context);
    const source = context.steps.get(first);
    const maxItems =
      source !== undefined && !isMapStep(source) && !isParallelStep(source) && source.uses === "chat"
        ? schemaMaxItems(source.with.schema)
        : undefined;
    const tokens = itemTokens === undefined ? {} : { itemTokens };
    if (maxItems !== undefined)
      return { count: maxItems, exact: false, ...tokens, source: `maxItems of steps.${first}'s schema` };
    return { exact: false, ...tokens, source: `steps.${first}.output (known when that step has run)` };
  }
  return { exact: false, source: `${reference.text} (known when the step runs)` };
}

function schemaMaxItems(schema: Record<string, unknown> | undefined): number | undefined {
  if (schema?.type !== "array") return undefined;
  const maxItems = schema.maxItems;
  return typeof maxItems === "number" && Number.isInteger(maxItems) && maxItems >= 0 ? maxItems : undefined;
}

/** Most tokens one item of a list takes as text. */
export function itemTokens(items: readonly unknown[]): number {
  return Math.max(0, ...items.map((item) => countTextTokens(stringifyValue(item))));
}
