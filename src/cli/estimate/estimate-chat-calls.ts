import { findModel } from "../../catalog/models.js";
import { roundYuan } from "../../catalog/prices.js";
import { priceChat } from "../../cost/price-operation.js";
import type { Message, Tool } from "../../gateway/wire.js";
import type { EstimateContext } from "./estimate-context.js";
import { outputBudget } from "./output-budget.js";
import type { TextBound } from "./template-bound.js";

/** A model that may be called without a price: what it would be billed for at most. */
export interface UnpricedUse {
  readonly name: string;
  readonly calls: number;
  readonly promptTokens: number;
  readonly outputTokens: number;
}

/** The bound of a step's chat calls. */
export interface ChatCallsEstimate {
  /** Priced part of the bound, in yuan. */
  readonly yuan: number;
  readonly unpriced: readonly UnpricedUse[];
  /** False when a figure rests on an assumption the ledger names in `assumptions`. */
  readonly upperBound: boolean;
  readonly assumptions: readonly string[];
}

/** What a step sends: the models it may try, its text, and how many model turns it may take. */
export interface ChatCallsPlan {
  /** The model, then its fallbacks. */
  readonly models: readonly string[];
  readonly system?: TextBound;
  readonly prompt: TextBound;
  /** Prompt tokens of media (images, audio, video). */
  readonly mediaTokens: number;
  readonly limit: number | undefined;
  /** Model turns: 1, or more for tool loops and agents (each turn carries the replies before it). */
  readonly turns: number;
  readonly tools?: readonly Tool[];
}

/**
 * Prices every turn on every model of the chain with the ledger's own estimate. A turn's worst case
 * is one model's bill plus the bills of the reasoning models before it: a reasoning model that
 * spends its budget on hidden tokens comes back empty, is billed, and the call falls back.
 */
export function estimateChatCalls(plan: ChatCallsPlan, context: EstimateContext): ChatCallsEstimate {
  const assumptions = new Set<string>();
  let upperBound = true;
  let yuan = 0;
  const unpriced = new Map<string, { calls: number; promptTokens: number; outputTokens: number }>();
  const messages: Message[] = [
    ...(plan.system === undefined || plan.system.text === ""
      ? []
      : [{ role: "system" as const, content: plan.system.text }]),
    { role: "user", content: plan.prompt.text },
  ];
  const extraTokens = (plan.system?.extraTokens ?? 0) + plan.prompt.extraTokens + plan.mediaTokens;
  for (let turn = 0; turn < plan.turns; turn++) {
    const costs = plan.models.map((model) => {
      const budget = outputBudget(context.ledger, model, plan.limit);
      const estimate = context.ledger.estimate({
        kind: "chat",
        request: {
          model,
          messages,
          max_tokens: budget.tokens,
          ...(plan.tools === undefined || plan.tools.length === 0 ? {} : { tools: [...plan.tools] }),
        },
      });
      // Earlier turns' replies go back to the model with the next turn; a prompt that does not fit
      // the context window is refused before it is billed, so the window caps what can be billed.
      const window = findModel(model)?.contextWindow;
      const wanted = estimate.promptTokens + extraTokens + turn * budget.tokens;
      const promptTokens =
        window === undefined ? wanted : Math.min(wanted, Math.max(estimate.promptTokens, window - budget.tokens));
      const cost = priceChat(
        model,
        { promptTokens, completionTokens: budget.tokens, images: estimate.images },
        context.ledger.prices,
      );
      for (const assumption of budget.assumptions) assumptions.add(assumption);
      if (!budget.upperBound) upperBound = false;
      if (cost.yuan === undefined) {
        const use = unpriced.get(model) ?? { calls: 0, promptTokens: 0, outputTokens: 0 };
        unpriced.set(model, {
          calls: use.calls + 1,
          promptTokens: use.promptTokens + promptTokens,
          outputTokens: use.outputTokens + budget.tokens,
        });
      }
      return { yuan: cost.yuan ?? 0, reasoning: findModel(model)?.capabilities.reasoning === true };
    });
    let worst = 0;
    let billedBefore = 0;
    for (const cost of costs) {
      worst = Math.max(worst, billedBefore + cost.yuan);
      if (cost.reasoning) billedBefore += cost.yuan;
    }
    yuan = roundYuan(yuan + worst);
  }
  return {
    yuan,
    unpriced: [...unpriced].map(([name, use]) => ({ name, ...use })),
    upperBound,
    assumptions: [...assumptions],
  };
}
