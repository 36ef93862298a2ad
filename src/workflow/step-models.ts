import { findModel, listModels, type Capabilities, type ModelInfo } from "../catalog/models.js";
import { EXACT_EXPRESSION } from "./schema/common-schemas.js";
import type { LeafStep } from "./schema/step-schemas.js";
import type { Defaults } from "./schema/workflow-schema.js";

/** Image model of image steps when neither the step nor defaults name one. */
export const DEFAULT_IMAGE_MODEL = "gamma-2.5-flash-image";

/** A capability a step needs from every model it may be sent to. */
export type NeededCapability = keyof Pick<Capabilities, "vision" | "audio" | "video" | "tools" | "imageGeneration">;

/** The models a step will try, and where each came from. */
export interface ModelPlan {
  /** The first model; undefined when neither the step nor defaults name one (or it is an expression). */
  readonly model?: string;
  readonly modelFrom: "step" | "defaults" | "built-in";
  readonly fallbacks: readonly string[];
  /** Inherited fallbacks left out because they lack something the step needs. */
  readonly dropped: ReadonlyArray<{ readonly model: string; readonly missing: NeededCapability }>;
}

const WHAT: Record<NeededCapability, string> = {
  vision: "image input",
  audio: "audio input",
  video: "video input",
  tools: "tool calling",
  imageGeneration: "image generation",
};

/** The capabilities a leaf step needs, from what its `with:` holds. */
export function neededCapabilities(step: LeafStep): NeededCapability[] {
  const needs: NeededCapability[] = [];
  if (step.uses === "chat") {
    if (step.with.images !== undefined) needs.push("vision");
    if (step.with.audio !== undefined) needs.push("audio");
    if (step.with.video !== undefined) needs.push("video");
    if (step.with.tools !== undefined && step.with.tools.length > 0) needs.push("tools");
  }
  if (step.uses === "agent") needs.push("tools");
  if (step.uses === "image") needs.push("imageGeneration");
  return needs;
}

/** Which models a model-calling step tries: its own, else the defaults; inherited fallbacks that cannot serve it are dropped. */
export function planModels(step: LeafStep, defaults: Defaults = {}): ModelPlan {
  if (step.uses !== "chat" && step.uses !== "agent" && step.uses !== "image")
    return { modelFrom: "step", fallbacks: [], dropped: [] };
  const own = step.with.model;
  const fallbackDefault = step.uses === "image" ? undefined : defaults.fallbacks;
  const model = own ?? (step.uses === "image" ? (defaults.imageModel ?? DEFAULT_IMAGE_MODEL) : defaults.model);
  const modelFrom =
    own !== undefined ? "step" : step.uses === "image" && defaults.imageModel === undefined ? "built-in" : "defaults";
  if (step.with.fallbacks !== undefined || fallbackDefault === undefined) {
    return { model, modelFrom, fallbacks: step.with.fallbacks ?? [], dropped: [] };
  }
  const needs = neededCapabilities(step);
  const fallbacks: string[] = [];
  const dropped: Array<{ model: string; missing: NeededCapability }> = [];
  for (const candidate of fallbackDefault) {
    const missing = missingCapability(candidate, needs);
    if (missing === undefined) fallbacks.push(candidate);
    else dropped.push({ model: candidate, missing });
  }
  return { model, modelFrom, fallbacks: fallbacks.filter((candidate) => candidate !== model), dropped };
}

/** The first needed capability a catalogue model lacks; undefined when it has all (or is unknown or an expression). */
export function missingCapability(model: string, needs: readonly NeededCapability[]): NeededCapability | undefined {
  if (EXACT_EXPRESSION.test(model)) return undefined;
  const info = findModel(model);
  if (info === undefined) return undefined;
  return needs.find((need) => !info.capabilities[need]);
}

/** `Model "x" has no audio input. Models with it: a, b.` */
export function capabilityMessage(model: string, need: NeededCapability): string {
  const able = listModels()
    .filter((info: ModelInfo) => info.capabilities[need])
    .map((info) => info.id);
  return `Model "${model}" has no ${WHAT[need]}; models with it: ${able.join(", ")}.`;
}

/** Whether a chat model only generates images (it belongs in an image step). */
export function isImageModel(model: string): boolean {
  return findModel(model)?.capabilities.imageGeneration === true;
}
