import { listModels, type ModelInfo } from "../catalog/models.js";
import { countPromptTokens, promptTokensAtMost } from "../gateway/prompt-tokens.js";
import { ContextWindowError, ParameterError, SvcFlowError } from "../errors.js";
import type { ChatRequest, Message, Tool, ToolChoice } from "../gateway/wire.js";
import {
  STREAM_OUTPUT_THRESHOLD,
  applyModelRules,
  checkInputForModel,
  type SamplingSettings,
} from "./apply-model-rules.js";
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
  /** The exact prompt tokens, counted on the first call (the tokenizer is costly to load), once
   * for the whole chain. */
  readonly promptTokens: () => number;
  readonly outputLimit?: number;
  readonly warnings: readonly ParameterWarning[];
}

/** Plans for each model of a fallback chain, first to last, and why any were left out. */
export interface ChainPlan {
  readonly plans: RequestPlan[];
  readonly skipped: ReadonlyArray<{ readonly model: string; readonly error: SvcFlowError }>;
}

/** A call's prompt size, worked out at most once for a whole fallback chain (every model gets the
 * same messages, tools and format) and only when something asks for it. */
export interface PromptSize {
  /** An upper bound that needs no tokenizer. */
  atMost(): number;
  /** The exact count the gateway bills. */
  exact(): number;
}

/** The PromptSize of what a call sends. */
export function promptSize(input: Pick<ChatInput, "messages" | "tools" | "responseFormat">): PromptSize {
  return new CountedPrompt(input);
}

class CountedPrompt implements PromptSize {
  readonly #input: Pick<ChatInput, "messages" | "tools" | "responseFormat">;
  #bound: number | undefined;
  #tokens: number | undefined;

  constructor(input: Pick<ChatInput, "messages" | "tools" | "responseFormat">) {
    this.#input = input;
  }

  atMost(): number {
    return (this.#bound ??= promptTokensAtMost(this.#counted()));
  }

  exact(): number {
    return (this.#tokens ??= countPromptTokens(this.#counted()));
  }

  #counted(): Pick<ChatRequest, "messages" | "tools" | "response_format"> {
    const { messages, tools, responseFormat } = this.#input;
    return { messages, tools, response_format: responseFormat };
  }
}

/** Builds one model's request: rules applied, input checked, prompt fitted to the window. */
export function planRequest(model: ModelInfo, input: ChatInput, size?: PromptSize): RequestPlan {
  const rules = applyModelRules(model, input.settings);
  const tools = input.tools?.length ? input.tools : undefined;
  const stream = input.stream || (rules.outputLimit ?? 0) > STREAM_OUTPUT_THRESHOLD;
  const request: ChatRequest = { model: model.id, messages: input.messages, ...rules.parameters };
  if (tools !== undefined) {
    request.tools = tools;
    if (input.toolChoice !== undefined) request.tool_choice = input.toolChoice;
    if (input.parallelToolCalls !== undefined) request.parallel_tool_calls = input.parallelToolCalls;
  }
  if (input.responseFormat !== undefined) request.response_format = input.responseFormat;
  // The client sends exactly this; usage comes only in a final chunk, and only when asked for.
  request.stream = stream;
  if (stream) request.stream_options = { include_usage: true };
  checkInputForModel(model, request);
  const prompt = size ?? promptSize(input);
  const output = rules.outputLimit ?? 0;
  const window = model.contextWindow;
  // The bound spares counting (and loading the tokenizer) for every prompt that plainly fits.
  if (window !== undefined && prompt.atMost() + output > window && prompt.exact() + output > window) {
    const tokens = prompt.exact();
    const needed = tokens + output;
    const wider = listModels()
      .filter((candidate) => (candidate.contextWindow ?? 0) >= needed)
      .map((candidate) => candidate.id);
    throw new ContextWindowError(
      `The prompt is ${tokens} tokens${rules.outputLimit ? ` plus ${rules.outputLimit} for the output` : ""}, more than ` +
        `the ${window}-token context window of ${model.id}. Shorten the prompt` +
        (wider.length > 0 ? `, or add a fallback with a larger window (${wider.slice(0, 3).join(", ")}).` : "."),
    );
  }
  return {
    model,
    request,
    stream,
    promptTokens() {
      return prompt.exact();
    },
    outputLimit: rules.outputLimit,
    warnings: rules.warnings,
  };
}

/** Plans a whole chain before anything is sent. The first model's own errors are thrown (they are
 * the caller's to fix), except a prompt too long for its window, which moves the call to the first
 * fallback that fits; fallbacks that cannot take the request are left out. */
export function planChain(chain: readonly ModelInfo[], input: ChatInput): ChainPlan {
  const plans: RequestPlan[] = [];
  const skipped: Array<{ model: string; error: SvcFlowError }> = [];
  const size = promptSize(input);
  let firstError: SvcFlowError | undefined;
  for (const [position, model] of chain.entries()) {
    try {
      plans.push(planRequest(model, input, size));
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
