import { listModels, type ModelInfo } from "../catalog/models.js";
import { countPromptTokens } from "../catalog/tokens.js";
import { ContextWindowError, ParameterError, SvcFlowError } from "../errors.js";
import type { ChatRequest, Message, Tool, ToolChoice } from "../gateway/wire.js";
import { STREAM_OUTPUT_THRESHOLD, applyModelRules, checkInputForModel, type SamplingSettings } from "./apply-model-rules.js";
import type { ParameterWarning } from "./parameter-warning.js";

/** What the caller wants sent, before any model's rules. */
export interface ChatInput {
  readonly messages: Message[];
  readonly tools?: Tool[];
  readonly toolChoice?: ToolChoice;
  readonly parallelToolCalls?: boolean;
  readonly responseFormat?: ChatRequest["response_format"];
  readonly settings: SamplingSettings;
  /** The caller iterates the reply as it comes. */
  readonly stream: boolean;
}

/** One model's request, exactly as it goes on the wire, with what the rules changed. */
export interface RequestPlan {
  readonly model: ModelInfo;
  readonly request: ChatRequest;
  /** Sent with `stream: true` (asked for, or an output budget above 16K). */
  readonly stream: boolean;
  readonly promptTokens: number;
  readonly outputLimit?: number;
  readonly warnings: readonly ParameterWarning[];
}

/** Plans for each model of a fallback chain, first to last, and why any were left out. */
export interface ChainPlan {
  readonly plans: RequestPlan[];
  readonly skipped: ReadonlyArray<{ readonly model: string; readonly error: SvcFlowError }>;
}

/** Builds one model's request: rules applied, input checked, prompt counted and fitted to the window. */
export function planRequest(model: ModelInfo, input: ChatInput, promptTokens?: number): RequestPlan {
  const rules = applyModelRules(model, input.settings);
  const tools = input.tools?.length ? input.tools : undefined;
  const stream = input.stream || (rules.outputLimit ?? 0) > STREAM_OUTPUT_THRESHOLD;
  const request: ChatRequest = {
    model: model.id,
    messages: input.messages,
    ...rules.parameters,
    ...(tools === undefined ? {} : { tools }),
    ...(tools === undefined || input.toolChoice === undefined ? {} : { tool_choice: input.toolChoice }),
    ...(tools === undefined || input.parallelToolCalls === undefined ? {} : { parallel_tool_calls: input.parallelToolCalls }),
    ...(input.responseFormat === undefined ? {} : { response_format: input.responseFormat }),
    // The client sends exactly this; usage comes only in a final chunk, and only when asked for.
    ...(stream ? { stream: true, stream_options: { include_usage: true } } : { stream: false }),
  };
  checkInputForModel(model, request);
  const tokens = promptTokens ?? countPromptTokens(request);
  const needed = tokens + (rules.outputLimit ?? 0);
  if (model.contextWindow !== undefined && needed > model.contextWindow) {
    const wider = listModels()
      .filter((candidate) => (candidate.contextWindow ?? 0) >= needed)
      .map((candidate) => candidate.id);
    throw new ContextWindowError(
      `The prompt is ${tokens} tokens${rules.outputLimit ? ` plus ${rules.outputLimit} for the output` : ""}, more than ` +
        `the ${model.contextWindow}-token context window of ${model.id}. Shorten the prompt` +
        (wider.length > 0 ? `, or add a fallback with a larger window (${wider.slice(0, 3).join(", ")}).` : "."),
    );
  }
  return {
    model,
    request,
    stream,
    promptTokens: tokens,
    ...(rules.outputLimit === undefined ? {} : { outputLimit: rules.outputLimit }),
    warnings: rules.warnings,
  };
}

/** Plans a whole chain before anything is sent. The first model's own errors are thrown (they are
 * the caller's to fix), except a prompt too long for its window, which moves the call to the first
 * fallback that fits; fallbacks that cannot take the request are left out. */
export function planChain(chain: readonly ModelInfo[], input: ChatInput): ChainPlan {
  const plans: RequestPlan[] = [];
  const skipped: Array<{ model: string; error: SvcFlowError }> = [];
  let promptTokens: number | undefined;
  let firstError: SvcFlowError | undefined;
  for (const [position, model] of chain.entries()) {
    try {
      const plan = planRequest(model, input, promptTokens);
      promptTokens = plan.promptTokens;
      plans.push(plan);
    } catch (error) {
      if (!(error instanceof SvcFlowError)) throw error;
      if (position === 0 && !(error instanceof ContextWindowError)) throw error;
      firstError ??= error;
      skipped.push({ model: model.id, error });
    }
  }
  if (plans.length === 0) {
    throw firstError ?? new ParameterError("No model to send the request to.");
  }
  return { plans, skipped };
}
