import { findModel } from "../../catalog/models.js";
import { mergePrices, type PriceOverrides, type PriceTable } from "../../catalog/prices.js";
import { catalogueId, isImageModel } from "../../cost/price-operation.js";
import type { ValuePath } from "../expression/index.js";
import { EXACT_EXPRESSION } from "../schema/common-schemas.js";
import type { LeafStep } from "../schema/step-schemas.js";
import type { WorkflowDefinition } from "../schema/workflow-schema.js";
import { planModels } from "../step-models.js";
import { stepPlaces, type StepPlace } from "./walk-steps.js";
import type { RawIssue } from "./zod-issues.js";

/** The run's money settings, laid over the file's `budget:` (as `run --budget --prices --allow-unpriced` does). */
export interface PricingCheckOptions {
  /** The cap in yuan. Default: `budget.maxYuan`. */
  readonly budgetYuan?: number;
  /** Prices laid over the published ones (a price file's content). */
  readonly prices?: PriceOverrides;
  /** Run calls to models without a price, uncounted. Default: `budget.allowUnpriced`, else false. */
  readonly allowUnpriced?: boolean;
}

/**
 * Under a budget, every model a step may call (its model and fallbacks) needs a price: a cap cannot
 * bound a call it cannot price, so the run would stop at that call's first attempt. One issue per
 * step and model, naming the fix.
 */
export function checkPricing(
  definition: WorkflowDefinition,
  options: PricingCheckOptions = {},
  places: readonly StepPlace[] = stepPlaces(definition.steps),
): RawIssue[] {
  const budgetYuan = options.budgetYuan ?? definition.budget?.maxYuan;
  const allowUnpriced = options.allowUnpriced ?? definition.budget?.allowUnpriced ?? false;
  if (budgetYuan === undefined || allowUnpriced) return [];
  const prices = mergePrices(options.prices);
  const cap =
    options.budgetYuan === undefined ? `budget.maxYuan of ¥${budgetYuan}` : `the budget of ¥${budgetYuan} (--budget)`;
  const issues: RawIssue[] = [];
  for (const { step, path } of places) {
    if (!("uses" in step)) continue;
    for (const { model, at } of modelsOf(step, path, definition)) {
      if (EXACT_EXPRESSION.test(model) || findModel(model) === undefined || hasPrice(model, prices)) continue;
      issues.push({
        path: at,
        message:
          `Step "${step.id}" may call ${model}, which has no published price, so ${cap} cannot bound it and the run would stop at its first call. ` +
          `Give its price in a prices file (--prices FILE), or set budget.allowUnpriced: true (--allow-unpriced) to run it uncounted.`,
      });
    }
  }
  return issues;
}

// A step's own model and fallbacks are reported where they are written; inherited ones at its `with:`.
function modelsOf(step: LeafStep, path: ValuePath, definition: WorkflowDefinition): { model: string; at: ValuePath }[] {
  if (step.uses !== "chat" && step.uses !== "image" && step.uses !== "agent") return [];
  // A named agent without with.model brings its own model; its calls are priced as they happen.
  if (step.uses === "agent" && step.with.agent !== undefined && step.with.model === undefined) return [];
  const plan = planModels(step, definition.defaults);
  const withPath = [...path, "with"];
  const models: { model: string; at: ValuePath }[] = [];
  if (plan.model !== undefined)
    models.push({ model: plan.model, at: step.with.model === undefined ? withPath : [...withPath, "model"] });
  plan.fallbacks.forEach((model, index) => {
    models.push({ model, at: step.with.fallbacks === undefined ? withPath : [...withPath, "fallbacks", index] });
  });
  return models;
}

function hasPrice(model: string, prices: PriceTable): boolean {
  const id = catalogueId(model);
  return isImageModel(id, prices) ? prices.image[id] !== undefined : prices.chat[id] !== undefined;
}
