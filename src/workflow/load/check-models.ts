import { findModel, suggestModels } from "../../catalog/models.js";
import type { ValuePath } from "../expression/index.js";
import { EXACT_EXPRESSION } from "../schema/common-schemas.js";
import type { LeafStep } from "../schema/step-schemas.js";
import type { WorkflowDefinition } from "../schema/workflow-schema.js";
import {
  capabilityMessage,
  isImageModel,
  missingCapability,
  neededCapabilities,
  planModels,
  type NeededCapability,
} from "../step-models.js";
import { stepPlaces, type StepPlace } from "./walk-steps.js";
import type { RawIssue } from "./zod-issues.js";

/** What the loader checks model ids against. */
export interface ModelCheckOptions {
  /** Models the key may call (live `GET /models`); when given, others are errors. */
  readonly models?: readonly string[];
}

// The field whose presence creates each need, so the error points at the cause.
const CAUSE: Record<NeededCapability, string> = {
  vision: "images",
  audio: "audio",
  video: "video",
  tools: "tools",
  imageGeneration: "model",
};
const SENDS: Record<NeededCapability, string> = {
  vision: "sends images",
  audio: "sends audio",
  video: "sends video",
  tools: "calls tools",
  imageGeneration: "generates an image",
};

/** Checks model ids against the catalogue and that each model a step may reach can do what the step asks. */
export function checkModels(
  definition: WorkflowDefinition,
  options: ModelCheckOptions = {},
  places: readonly StepPlace[] = stepPlaces(definition.steps),
): RawIssue[] {
  const issues: RawIssue[] = [];
  const known = (model: string, path: ValuePath): boolean => {
    if (EXACT_EXPRESSION.test(model)) return false;
    if (findModel(model) === undefined) {
      const near = suggestModels(model)
        .map((id) => `"${id}"`)
        .join(", ");
      issues.push({
        path,
        message: `Unknown model "${model}". Did you mean ${near}? Run \`svc-flow models\` for the models your key may call.`,
      });
      return false;
    }
    if (
      options.models !== undefined &&
      !options.models.includes(model) &&
      !options.models.includes(findModel(model)!.servedAs)
    ) {
      issues.push({
        path,
        message: `Your key may not call "${model}" (GET /models does not list it). Pick one it lists, e.g. ${options.models.slice(0, 3).join(", ")}.`,
      });
      return false;
    }
    return true;
  };
  const defaults = definition.defaults ?? {};
  for (const field of ["model", "imageModel"] as const) {
    const model = defaults[field];
    if (model !== undefined) known(model, ["defaults", field]);
  }
  defaults.fallbacks?.forEach((model, index) => known(model, ["defaults", "fallbacks", index]));
  for (const { step, path } of places) {
    if ("uses" in step) checkStep(step, path, known, definition, issues);
  }
  return issues;
}

function checkStep(
  step: LeafStep,
  path: ValuePath,
  known: (model: string, path: ValuePath) => boolean,
  definition: WorkflowDefinition,
  issues: RawIssue[],
): void {
  if (step.uses !== "chat" && step.uses !== "image" && step.uses !== "agent") return;
  const withPath = [...path, "with"];
  const plan = planModels(step, definition.defaults);
  const needs = neededCapabilities(step);
  const ownModel = step.with.model !== undefined;
  // A named agent may bring its own model; that is checked when the step runs.
  const agentModel = step.uses === "agent" && step.with.agent !== undefined;
  if (plan.model === undefined && !agentModel) {
    issues.push({
      path: withPath,
      message: 'No model for this step. Set with.model, or defaults.model for every step (e.g. "alpha-sonnet-4-6").',
    });
  }
  const candidates: Array<{ model: string; path: ValuePath; origin: string }> = [];
  if (plan.model !== undefined) {
    const origin = ownModel
      ? ""
      : plan.modelFrom === "defaults"
        ? ` (from defaults.${step.uses === "image" ? "imageModel" : "model"}; set with.model to override)`
        : "";
    candidates.push({ model: plan.model, path: ownModel ? [...withPath, "model"] : withPath, origin });
  }
  const ownFallbacks = step.with.fallbacks !== undefined;
  plan.fallbacks.forEach((model, index) => {
    const origin = ownFallbacks ? "" : " (from defaults.fallbacks)";
    candidates.push({ model, path: ownFallbacks ? [...withPath, "fallbacks", index] : withPath, origin });
  });
  for (const candidate of candidates) {
    // Defaults were checked once at their own place.
    if (candidate.origin === "" ? !known(candidate.model, candidate.path) : findModel(candidate.model) === undefined)
      continue;
    if (step.uses !== "image" && isImageModel(candidate.model)) {
      issues.push({
        path: candidate.path,
        message: `"${candidate.model}" only generates images${candidate.origin}; use it in a step with uses: image, and a chat model here.`,
      });
      continue;
    }
    const missing = missingCapability(candidate.model, needs);
    if (missing === undefined) continue;
    const causePath =
      missing === "imageGeneration" || !(CAUSE[missing] in step.with) ? candidate.path : [...withPath, CAUSE[missing]];
    issues.push({
      path: causePath,
      message: `This step ${SENDS[missing]}, but it may go to "${candidate.model}"${candidate.origin}. ${capabilityMessage(candidate.model, missing)}`,
    });
  }
  const maxTokens = "maxTokens" in step.with ? step.with.maxTokens : undefined;
  const minimum = plan.model === undefined ? undefined : findModel(plan.model)?.rules.minOutputTokens;
  if (typeof maxTokens === "number" && minimum !== undefined && maxTokens < minimum) {
    issues.push({
      path: [...withPath, "maxTokens"],
      message: `${plan.model} thinks before it answers and needs maxTokens of at least ${minimum}; with ${maxTokens} it can come back empty.`,
    });
  }
}
