import { evaluateExpression, isTruthy, parseTemplate, referencesOf } from "../../workflow/expression/index.js";
import type { EstimateContext } from "./estimate-context.js";

/** A step's `if:` as far as it is known before the run: a literal, or an expression over known inputs; undefined otherwise. */
export function knownCondition(condition: unknown, context: EstimateContext): boolean | undefined {
  if (condition === undefined) return true;
  if (typeof condition === "boolean") return condition;
  const single = typeof condition === "string" ? parseTemplate(condition).single : undefined;
  if (single === undefined) return undefined;
  const known = referencesOf(single).every((reference) => {
    const name = reference.path[0];
    return reference.root === "inputs" && typeof name === "string" && !context.missingInputs.has(name);
  });
  if (!known) return undefined;
  try {
    return isTruthy(evaluateExpression(single, { inputs: context.inputs }));
  } catch {
    return undefined;
  }
}
