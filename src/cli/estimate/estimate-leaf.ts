import type { MusicOperation } from "../../catalog/prices.js";
import { MAX_IMAGE_TOKENS } from "../../catalog/tokens.js";
import { wireTool, type ToolDefinition } from "../../chat/wire-tool.js";
import type { Tool } from "../../gateway/wire.js";
import { DEFAULT_TOOL_ROUNDS } from "../../workflow/kinds/chat-kind.js";
import type {
  AgentStep,
  ChatStep,
  ImageStep,
  LeafStep,
  MusicStep,
  ToolStep,
} from "../../workflow/schema/step-schemas.js";
import { workflowToolContext } from "../../workflow/schema/tool-settings-schema.js";
import { planModels } from "../../workflow/step-models.js";
import { createTools, isToolName } from "../../../tools/index.js";
import { planAgent } from "./agent-plan.js";
import { estimateChatCalls, type ChatCallsPlan, type UnpricedUse } from "./estimate-chat-calls.js";
import type { EstimateContext } from "./estimate-context.js";
import { gatewayToolPlan, GATEWAY_TOOLS } from "./gateway-tools.js";
import { isMcpReference } from "../../workflow/mcp/mcp-reference.js";
import { boundMedia } from "./media-bound.js";
import { stepLimit } from "./output-budget.js";
import { boundText, joinBounds, literal } from "./template-bound.js";

/** The bound of one run of a leaf step (one map item's worth, inside a map). */
export interface LeafEstimate {
  /** Models it may call (the model, then fallbacks), or `music:<operation>`; empty for a free step. */
  readonly models: readonly string[];
  /** Most billed calls, not counting fallbacks. */
  readonly calls: number;
  /** Priced part of the bound, in yuan. */
  readonly yuan: number;
  readonly unpriced: readonly UnpricedUse[];
  /** False when the figure rests on something only the run knows (see notes). */
  readonly upperBound: boolean;
  readonly notes: readonly string[];
}

/** Estimates one leaf step as the run would send it. */
export async function estimateLeaf(step: LeafStep, context: EstimateContext): Promise<LeafEstimate> {
  switch (step.uses) {
    case "chat":
      return estimateChat(step, context);
    case "image":
      return estimateImage(step, context);
    case "music":
      return estimateMusic(step, context);
    case "agent":
      return estimateAgent(step, context);
    case "tool":
      return estimateTool(step, context);
    case "approval":
      return { models: [], calls: 0, yuan: 0, unpriced: [], upperBound: true, notes: [] };
  }
}

async function estimateChat(step: ChatStep, context: EstimateContext): Promise<LeafEstimate> {
  const { model, fallbacks } = planModels(step, context.workflow.definition.defaults);
  if (model === undefined) return unknownModel();
  const history = Array.isArray(step.with.history)
    ? step.with.history.map((turn) => boundText(turn.content, context))
    : step.with.history === undefined
      ? []
      : [{ ...literal(""), unknown: [step.with.history] }];
  const media = await Promise.all(
    (["images", "audio", "video"] as const).map((field) =>
      boundMedia(step.with[field], field === "images" ? "image" : field, context),
    ),
  );
  const tools = step.with.tools ?? [];
  const limit = stepLimit(step.with.maxTokens, context.workflow.definition.defaults?.maxTokens, context);
  const rounds = tools.length > 0 ? (step.with.maxToolRounds ?? DEFAULT_TOOL_ROUNDS) : 0;
  const schemaTool: Tool[] =
    step.with.schema === undefined
      ? []
      : [{ type: "function", function: { name: "extract", parameters: step.with.schema } }];
  const notes = [
    ...(limit.note === undefined ? [] : [limit.note]),
    ...(rounds > 0
      ? [`up to ${rounds + 1} model turns (maxToolRounds ${rounds}); tool results sent back are not counted`]
      : []),
    ...gatewayToolNotes(tools, context),
  ];
  return chatLeaf(
    {
      models: [model, ...fallbacks],
      ...(step.with.system === undefined ? {} : { system: boundText(step.with.system, context) }),
      prompt: joinBounds([...history, boundText(step.with.prompt, context)]),
      mediaTokens: media.reduce((sum, bound) => sum + bound.tokens, 0),
      limit: limit.limit,
      turns: rounds + 1,
      tools: [...wireTools(tools, context), ...schemaTool],
    },
    context,
    { notes, unknown: media.flatMap((bound) => bound.unknown), exact: rounds === 0 && limit.note === undefined },
  );
}

async function estimateImage(step: ImageStep, context: EstimateContext): Promise<LeafEstimate> {
  const { model, fallbacks } = planModels(step, context.workflow.definition.defaults);
  if (model === undefined) return unknownModel();
  const plan = {
    models: [model, ...fallbacks],
    prompt: boundText(step.with.prompt, context),
    mediaTokens: step.with.source === undefined ? 0 : MAX_IMAGE_TOKENS,
    limit: undefined,
    turns: 1,
  };
  return chatLeaf(plan, context, { notes: [], unknown: [], exact: true });
}

function estimateMusic(step: MusicStep, context: EstimateContext): LeafEstimate {
  return musicLeaf(step.with.operation ?? "generate", context);
}

function musicLeaf(operation: MusicOperation, context: EstimateContext): LeafEstimate {
  const estimate = context.ledger.estimate({ kind: "music", operation });
  const name = `music:${operation}`;
  return {
    models: [name],
    calls: 1,
    yuan: estimate.yuan ?? 0,
    unpriced: estimate.yuan === undefined ? [{ name, calls: 1, promptTokens: 0, outputTokens: 0 }] : [],
    upperBound: true,
    notes: [],
  };
}

async function estimateAgent(step: AgentStep, context: EstimateContext): Promise<LeafEstimate> {
  const agent = planAgent(step, context);
  if (agent.model === undefined) return unknownModel();
  const notes = [
    `up to ${agent.maxSteps} model turns (maxSteps); tool results sent back are not counted`,
    ...gatewayToolNotes(agent.tools, context),
  ];
  const plan: ChatCallsPlan = {
    models: [agent.model, ...agent.fallbacks],
    system: joinBounds([
      literal(agent.system),
      ...(step.with.system === undefined ? [] : [boundText(step.with.system, context)]),
    ]),
    prompt: boundText(step.with.prompt, context),
    mediaTokens: 0,
    limit: agent.maxTokens,
    turns: agent.maxSteps,
    tools: wireTools(agent.tools, context),
  };
  return chatLeaf(plan, context, { notes, unknown: [], exact: false });
}

function estimateTool(step: ToolStep, context: EstimateContext): LeafEstimate {
  const name = step.with.tool;
  if (isMcpReference(name))
    return { models: [], calls: 0, yuan: 0, unpriced: [], upperBound: true, notes: [mcpNote([name])] };
  if (!Object.hasOwn(GATEWAY_TOOLS, name))
    return { models: [], calls: 0, yuan: 0, unpriced: [], upperBound: true, notes: [] };
  const input = step.with.input;
  const prompt =
    typeof input === "string" || input === undefined
      ? boundText(input ?? "", context)
      : joinBounds(Object.values(input).map((value) => boundText(value, context)));
  const tool = gatewayToolPlan(name, prompt);
  return tool.kind === "music"
    ? musicLeaf(tool.operation, context)
    : chatLeaf(tool.plan, context, { notes: tool.notes, unknown: [], exact: tool.notes.length === 0 });
}

function chatLeaf(
  plan: ChatCallsPlan,
  context: EstimateContext,
  extra: { notes: readonly string[]; unknown: readonly string[]; exact: boolean },
): LeafEstimate {
  const estimate = estimateChatCalls(plan, context);
  const unknown = [...(plan.system?.unknown ?? []), ...plan.prompt.unknown, ...extra.unknown];
  const bounded = [...(plan.system?.bounded ?? []), ...plan.prompt.bounded].filter((bound) => bound.tokens > 0);
  const notes = [
    ...extra.notes,
    ...bounded.map(
      (bound) =>
        `${bound.expression} counted at up to ${bound.tokens.toLocaleString("en-US")} prompt tokens (what that step may output; a smaller maxTokens there lowers it)`,
    ),
    ...(unknown.length === 0
      ? []
      : [`the prompt holds ${unknown.join(", ")}, whose size is only known when the step runs`]),
    ...(plan.models.length > 1
      ? [
          `fallbacks ${plan.models.slice(1).join(", ")} counted at their worst (an empty reply from a reasoning model is billed before the next is tried)`,
        ]
      : []),
    ...estimate.assumptions,
  ];
  return {
    models: plan.models,
    calls: plan.turns,
    yuan: estimate.yuan,
    unpriced: estimate.unpriced,
    upperBound: extra.exact && estimate.upperBound && unknown.length === 0,
    notes,
  };
}

function unknownModel(): LeafEstimate {
  return {
    models: [],
    calls: 1,
    yuan: 0,
    unpriced: [{ name: "unknown model", calls: 1, promptTokens: 0, outputTokens: 0 }],
    upperBound: false,
    notes: ["no model: set with.model or defaults.model"],
  };
}

// Tool definitions go out with every turn and count as prompt tokens; fetch_url's description names its limits.
function wireTools(tools: ReadonlyArray<string | ToolDefinition>, context: EstimateContext): Tool[] {
  const names = tools.filter((tool): tool is string => typeof tool === "string" && isToolName(tool));
  const own = tools.filter((tool): tool is ToolDefinition => typeof tool !== "string");
  return [
    ...createTools(names, {
      ...workflowToolContext(context.workflow.definition.tools),
      workspace: context.workflow.baseDir,
    }),
    ...own,
  ].map((tool) => wireTool(tool));
}

function gatewayToolNotes(tools: ReadonlyArray<string | ToolDefinition>, context: EstimateContext): string[] {
  const names = tools.map((tool) => (typeof tool === "string" ? tool : tool.name));
  const billed = names.filter((name) => Object.hasOwn(GATEWAY_TOOLS, name));
  const mcp = names.filter(isMcpReference);
  const each = billed.map((name) => `${name} (${GATEWAY_TOOLS[name]!.describe(context)})`);
  return [
    ...(billed.length === 0
      ? []
      : [`the model may call ${each.join(", ")} any number of times: those calls are not counted`]),
    ...(mcp.length === 0 ? [] : [mcpNote(mcp)]),
  ];
}

// An MCP server runs outside svc-flow: its calls bill nothing through the gateway, and what it spends itself is not seen.
function mcpNote(references: readonly string[]): string {
  return `MCP tool${references.length === 1 ? "" : "s"} ${references.join(", ")} counted at ¥0: ${references.length === 1 ? "it calls" : "they call"} no model through svc-flow, and what the server spends on its own is not known here`;
}
