import { findModel } from "../catalog/models.js";
import { roundYuan, type MusicOperation, type PriceTable } from "../catalog/prices.js";
import { countPromptTokens } from "../gateway/prompt-tokens.js";
import type { ChatRequest } from "../gateway/wire.js";
import type { PlannedOperation } from "../gateway/usage-recorder.js";
import type { EntryPriceSource } from "./cost-entry.js";
import { catalogueId, isImageModel, priceChat, priceMusic } from "./price-operation.js";

/** Output tokens assumed for a request with no limit to a model with no published context window
 * (the spec's non-stream bound; the local gateway's default limit too). */
export const FALLBACK_OUTPUT_TOKENS = 16_384;
/** The same for a reasoning or thinking model, whose hidden tokens come out of the same limit. */
export const FALLBACK_REASONING_OUTPUT_TOKENS = 65_536;

/** How to estimate. */
export interface EstimateOptions {
  readonly prices: PriceTable;
  /** Output tokens assumed when a request sets no output limit. Default: the model's context
   * window left after the prompt (a hard ceiling), or FALLBACK_OUTPUT_TOKENS without one. */
  readonly defaultOutputTokens?: number;
}

/** The most an operation can cost, worked out before it is sent. */
export interface OperationEstimate {
  readonly kind: "chat" | "image" | "music";
  readonly model?: string;
  readonly musicOperation?: MusicOperation;
  /** Upper bound in yuan; undefined when the model or operation has no price. */
  readonly yuan: number | undefined;
  readonly priced: boolean;
  readonly priceSource: EntryPriceSource;
  readonly promptTokens: number;
  /** The output budget the bound assumes (the request's limit, or what `assumptions` say). */
  readonly maxOutputTokens: number;
  readonly images: number;
  /** True when `yuan` holds whatever the gateway returns; false when it rests on an assumption. */
  readonly upperBound: boolean;
  /** How the bound was reached where the request itself does not fix it. */
  readonly assumptions: readonly string[];
}

/** The upper bound of one planned operation's cost. */
export function estimateOperation(operation: PlannedOperation, options: EstimateOptions): OperationEstimate {
  if (operation.kind === "music") return estimateMusic(operation.operation, options.prices);
  return estimateChat(operation.request, options);
}

function estimateMusic(operation: MusicOperation, prices: PriceTable): OperationEstimate {
  const cost = priceMusic(operation, prices);
  return {
    kind: "music",
    musicOperation: operation,
    yuan: cost.yuan,
    priced: cost.yuan !== undefined,
    priceSource: cost.source,
    promptTokens: 0,
    maxOutputTokens: 0,
    images: 0,
    upperBound: true,
    assumptions: [],
  };
}

function estimateChat(request: ChatRequest, options: EstimateOptions): OperationEstimate {
  const assumptions: string[] = [];
  const prompt = new PromptCount(request);
  const output = outputBudget(request, prompt, options.defaultOutputTokens);
  const imageModel = isImageModel(request.model, options.prices);
  // Image models bill per image, so their output budget does not bear on the bound.
  if (output.assumption && !imageModel) assumptions.push(output.assumption);

  // The output limit is per choice; an image model puts one image in each reply.
  const choices = request.n ?? 1;
  const maxOutputTokens = output.tokens * choices;
  const images = imageModel ? choices : 0;
  // The spec returns the image inline in the reply's content: one image per reply.
  if (imageModel) assumptions.push(`one image per reply, as the spec returns them (${images} priced)`);
  const cost = priceChat(request.model, new CountedQuantities(prompt, maxOutputTokens, images), options.prices);
  return new ChatEstimate(
    imageModel ? "image" : "chat",
    request.model,
    cost.yuan,
    cost.source,
    prompt,
    maxOutputTokens,
    images,
    imageModel || output.upperBound,
    assumptions,
  );
}

// Counted on first read: the tokenizer costs ~100 MB and a fraction of a second to load, and an
// unpriced call with an output limit (most workflow calls) never needs the count.
class PromptCount {
  #request: ChatRequest | undefined;
  #tokens: number | undefined;

  constructor(request: ChatRequest) {
    this.#request = request;
  }

  get tokens(): number {
    if (this.#tokens === undefined) {
      this.#tokens = countPromptTokens(this.#request!);
      this.#request = undefined;
    }
    return this.#tokens;
  }
}

class CountedQuantities {
  readonly #prompt: PromptCount;

  constructor(
    prompt: PromptCount,
    readonly completionTokens: number,
    readonly images: number,
  ) {
    this.#prompt = prompt;
  }

  get promptTokens(): number {
    return this.#prompt.tokens;
  }
}

class ChatEstimate implements OperationEstimate {
  readonly #prompt: PromptCount;
  readonly priced: boolean;

  constructor(
    readonly kind: "chat" | "image",
    readonly model: string,
    readonly yuan: number | undefined,
    readonly priceSource: EntryPriceSource,
    prompt: PromptCount,
    readonly maxOutputTokens: number,
    readonly images: number,
    readonly upperBound: boolean,
    readonly assumptions: readonly string[],
  ) {
    this.#prompt = prompt;
    this.priced = yuan !== undefined;
  }

  get promptTokens(): number {
    return this.#prompt.tokens;
  }

  /** The estimate as plain data, the prompt counted (a getter on the prototype is not serialised). */
  toJSON(): Record<string, unknown> {
    const { kind, model, yuan, priced, priceSource, promptTokens, maxOutputTokens, images, upperBound, assumptions } =
      this;
    return { kind, model, yuan, priced, priceSource, promptTokens, maxOutputTokens, images, upperBound, assumptions };
  }
}

function outputBudget(
  request: ChatRequest,
  prompt: PromptCount,
  defaultOutputTokens: number | undefined,
): { tokens: number; upperBound: boolean; assumption?: string } {
  // The gateway's own order: max_completion_tokens wins over max_tokens. Reasoning and thinking
  // tokens come out of the same limit, so the limit bounds the whole completion.
  const limit = request.max_completion_tokens ?? request.max_tokens;
  if (limit != null) return { tokens: limit, upperBound: true };
  const info = findModel(catalogueId(request.model));
  const contextWindow = info?.contextWindow;
  const room = contextWindow === undefined ? undefined : Math.max(0, contextWindow - prompt.tokens);
  if (defaultOutputTokens !== undefined) {
    const tokens = room === undefined ? defaultOutputTokens : Math.min(room, defaultOutputTokens);
    return {
      tokens,
      upperBound: tokens === room,
      assumption:
        `no output limit in the request: assumed at most ${tokens} output tokens (defaultOutputTokens); ` +
        "set maxTokens to make the estimate a hard bound",
    };
  }
  if (room !== undefined) {
    return {
      tokens: room,
      upperBound: true,
      assumption:
        `no output limit in the request: reserved the ${room} tokens left in ${request.model}'s context ` +
        "window; set maxTokens for a smaller reservation",
    };
  }
  const tokens = info?.capabilities.reasoning ? FALLBACK_REASONING_OUTPUT_TOKENS : FALLBACK_OUTPUT_TOKENS;
  return {
    tokens,
    upperBound: false,
    assumption:
      `no output limit in the request and no published context window for ${request.model}: assumed at ` +
      `most ${tokens} output tokens; set maxTokens to make the estimate a hard bound`,
  };
}

/** The bound of a list of operations: the priced sum, and what could not be priced. */
export interface PlanEstimate {
  /** Sum of the priced operations' bounds; unpriced ones are listed, never counted as 0. */
  readonly yuan: number;
  /** True when every priced bound holds whatever the gateway returns. */
  readonly upperBound: boolean;
  /** Unpriced operations by model or music operation, with their token bounds. */
  readonly unpriced: Readonly<Record<string, { calls: number; promptTokens: number; maxOutputTokens: number }>>;
  readonly operations: readonly OperationEstimate[];
}

/** Estimates every operation of a plan (a workflow's calls) and adds them up. */
export function estimatePlan(operations: readonly PlannedOperation[], options: EstimateOptions): PlanEstimate {
  const estimates = operations.map((operation) => estimateOperation(operation, options));
  let yuan = 0;
  const unpriced: Record<string, { calls: number; promptTokens: number; maxOutputTokens: number }> = {};
  for (const estimate of estimates) {
    if (estimate.yuan !== undefined) {
      yuan = roundYuan(yuan + estimate.yuan);
      continue;
    }
    const key = estimate.model ?? estimate.musicOperation ?? estimate.kind;
    const group = (unpriced[key] ??= { calls: 0, promptTokens: 0, maxOutputTokens: 0 });
    group.calls += 1;
    group.promptTokens += estimate.promptTokens;
    group.maxOutputTokens += estimate.maxOutputTokens;
  }
  return { yuan, upperBound: estimates.every((estimate) => estimate.upperBound), unpriced, operations: estimates };
}
