import { findModel } from "../../catalog/models.js";
import type { CostLedger } from "../../cost/cost-ledger.js";
import { evaluateExpression, parseTemplate } from "../../workflow/expression/index.js";
import type { EstimateContext } from "./estimate-context.js";

/** The most output tokens one call can produce, as the ledger reserves it. */
export interface OutputBudget {
  readonly tokens: number;
  /** False when the figure rests on an assumption (no limit and no published context window). */
  readonly upperBound: boolean;
  readonly assumptions: readonly string[];
}

/** One call's output budget: the limit raised to the model's minimum (as ChatGateway sends it), or
 * what the ledger reserves when there is no limit. */
export function outputBudget(ledger: CostLedger, model: string, limit: number | undefined): OutputBudget {
  const minimum = findModel(model)?.rules.minOutputTokens ?? 0;
  const raised = limit === undefined ? undefined : Math.max(limit, minimum);
  const estimate = ledger.estimate({
    kind: "chat",
    request: {
      model,
      messages: [{ role: "user", content: "" }],
      ...(raised === undefined ? {} : { max_tokens: raised }),
    },
  });
  return { tokens: estimate.maxOutputTokens, upperBound: estimate.upperBound, assumptions: estimate.assumptions };
}

/** A step's output limit as written (a number, or `${{ inputs.x }}` with a known value); a note when it cannot be known. */
export function stepLimit(
  value: unknown,
  fallback: number | undefined,
  context: EstimateContext,
): { limit?: number; note?: string } {
  if (value === undefined) return fallback === undefined ? {} : { limit: fallback };
  if (typeof value === "number") return { limit: value };
  const single = typeof value === "string" ? parseTemplate(value).single : undefined;
  if (single !== undefined) {
    try {
      const limit = evaluateExpression(single, { inputs: context.inputs });
      if (typeof limit === "number" && Number.isInteger(limit) && limit > 0) return { limit };
    } catch {
      // Reads something only the run knows; fall through to the note.
    }
  }
  return { note: `maxTokens ${String(value)} is only known when the step runs: counted as if no limit were set` };
}
