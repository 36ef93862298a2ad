import { hash } from "node:crypto";
import { tmpdir } from "node:os";
import type { AgentDefinition } from "../../../agents/index.js";
import { createTools } from "../../../tools/index.js";
import { toJsonSchema } from "../../chat/json-schema.js";
import { wireTool } from "../../chat/wire-tool.js";
import { collectReferences, referencedStepIds } from "../expression/index.js";
import { mediaDigest, type MediaDigest } from "../media/media-digest.js";
import type { WorkflowDefinition } from "../schema/workflow-schema.js";
import type { CallStep, Step } from "../schema/step-schemas.js";
import { planModels } from "../step-models.js";

/*
 * THE KEYING RULE (docs/rerun.md states it for users; keep the two in step).
 *
 * A leaf step's key is the sha256 (hex) of the canonical JSON (object keys sorted, undefined left out) of
 *   v         STEP_KEY_VERSION, so a change of this rule never matches older keys;
 *   kind      chat, image, music, agent or tool;
 *   with      the step's `with:` after its expressions are evaluated, without model and fallbacks;
 *             media (chat images/audio/video, image source) as the sha256 of their bytes, whether given
 *             as a path, a data URI or an earlier step's artifact; an http(s) URL as the URL (not fetched);
 *   model, fallbacks   the models the step will try, after `defaults:` (model, imageModel, fallbacks);
 *   settings  defaults.temperature and defaults.maxTokens (chat and agent steps, which send them);
 *   tools     each tool the step may call: name, description and JSON Schema (tools/), the server
 *             definition (MCP `server/tool`), the workflow's `tools:` settings; a named agent's definition;
 *   reads     the keys of the steps it reads (`steps.<id>` anywhere in the step, and `needs:`), by id;
 *             inside a map item whose list reads steps, also `$map`: those steps' keys (container-keys.ts);
 *   once      only for a step that must run whatever (`reuse: false`, or `rerun --from`): the run id,
 *             so its key, and every key that reads it, is new in every run.
 * Not in it: the step's id and place in the file, name, retry, timeout, budget, prices, `if:` (a step
 * that runs has a key; a skipped one has SKIPPED_STEP_KEY).
 * Containers: a map item's key covers its steps' keys; a map's key its items' keys in order (so a
 * changed item changes it); a parallel's its children's keys. An approval step is never reused (a
 * person answers again); its key covers the question and the answer, so steps after it that get the
 * same answer are reused. Two runs that would send the same calls get the same keys.
 */

/** Version of the keying rule; part of every key. */
export const STEP_KEY_VERSION = 1;
/** The key a skipped step passes to the steps that read it. */
export const SKIPPED_STEP_KEY = "skipped";

/** What a step key is made of beyond the step's own definition: the keys of what it read, by id. */
export type StepReads = Readonly<Record<string, string>>;

/** The key of a definition (any JSON-like value) and the keys it read: sha256 of their canonical JSON. */
export function stepKey(definition: Readonly<Record<string, unknown>>, reads: StepReads = {}): string {
  const body = canonicalJson({ v: STEP_KEY_VERSION, ...definition, reads });
  return hash("sha256", body);
}

/** JSON with object keys sorted and undefined left out, so equal values give equal text. */
export function canonicalJson(value: unknown): string {
  return JSON.stringify(sortKeys(value)) ?? "null";
}

function sortKeys(value: unknown): unknown {
  if (Array.isArray(value)) return value.map((item) => (item === undefined ? null : sortKeys(item)));
  if (value === null || typeof value !== "object") return value;
  const sorted: Record<string, unknown> = {};
  for (const name of Object.keys(value).sort()) {
    const item = (value as Record<string, unknown>)[name];
    if (item !== undefined) sorted[name] = sortKeys(item);
  }
  return sorted;
}

const READS = new WeakMap<object, readonly string[]>();

/** The ids of the steps a step reads: `steps.<id>` anywhere in it (children included) and `needs:`. */
export function stepReads(step: Step): readonly string[] {
  let ids = READS.get(step);
  if (ids === undefined) {
    ids = [...new Set([...referencedStepIds(collectReferences(step)), ...(step.needs ?? [])])].filter(
      (id) => id !== step.id,
    );
    READS.set(step, ids);
  }
  return ids;
}

/** What leafDefinition needs beyond the step: the workflow's defaults and sections, agents, and where media are. */
export interface StepKeyContext {
  readonly workflow: Pick<WorkflowDefinition, "defaults" | "tools" | "mcp">;
  /** Agents that `agent:` may name. */
  readonly agents: readonly AgentDefinition[];
  /** Folder relative media paths are read from (the workflow file's). */
  readonly baseDir: string;
  /** The run directory, where artifact references point. */
  readonly runDir?: string;
  /** File digests already taken in this run. */
  readonly mediaCache?: Map<string, Promise<MediaDigest>>;
}

/** The resolved definition of a leaf step (everything of the rule but `reads` and `once`), `input` being its rendered `with:`. */
export async function leafDefinition(
  step: CallStep,
  input: Readonly<Record<string, unknown>>,
  context: StepKeyContext,
): Promise<Record<string, unknown>> {
  const { model: _model, fallbacks: _fallbacks, ...rest } = input;
  const defaults = context.workflow.defaults ?? {};
  const rendered = { ...step, with: { ...step.with, ...modelFields(input) } } as CallStep;
  const plan = planModels(rendered, defaults);
  const named = step.uses === "agent" && typeof input.agent === "string" ? input.agent : undefined;
  // A named agent keeps its own model unless the step names one (agent-kind.ts).
  const model =
    named !== undefined && !("model" in step.with && step.with.model !== undefined) ? undefined : plan.model;
  const folders = { baseDir: context.baseDir, runDir: context.runDir, cache: context.mediaCache };
  const withMedia = { ...rest };
  for (const field of MEDIA_FIELDS[step.uses]) {
    if (withMedia[field] === undefined) continue;
    const list = field === "source" ? [withMedia[field]] : [withMedia[field]].flat();
    const present = list.filter((item) => item !== undefined && item !== null && item !== "");
    withMedia[field] = await Promise.all(present.map((item) => mediaDigest(item, folders)));
  }
  const settings =
    step.uses === "chat" || step.uses === "agent"
      ? { maxTokens: defaults.maxTokens, temperature: defaults.temperature }
      : undefined;
  return {
    kind: step.uses,
    with: withMedia,
    model,
    fallbacks: plan.fallbacks,
    settings,
    tools: toolsOf(step, input, context),
  };
}

const MEDIA_FIELDS: Readonly<Record<CallStep["uses"], readonly string[]>> = {
  chat: ["images", "audio", "video"],
  image: ["source"],
  music: [],
  agent: [],
  tool: [],
};

function modelFields(input: Readonly<Record<string, unknown>>): Record<string, unknown> {
  return {
    ...(typeof input.model === "string" ? { model: input.model } : {}),
    ...(Array.isArray(input.fallbacks) ? { fallbacks: input.fallbacks } : {}),
  };
}

function toolsOf(step: CallStep, input: Readonly<Record<string, unknown>>, context: StepKeyContext): unknown {
  const names = (value: unknown): string[] =>
    Array.isArray(value) ? value.filter((name): name is string => typeof name === "string") : [];
  const settings = context.workflow.tools;
  if (step.uses === "tool") return { list: toolList(names([input.tool]), context), settings };
  if (step.uses === "chat" && names(input.tools).length > 0)
    return { list: toolList(names(input.tools), context), settings };
  if (step.uses !== "agent") return undefined;
  const agent = context.agents.find((candidate) => candidate.name === input.agent);
  return {
    list: toolList(names(input.tools), context),
    settings,
    ...(agent === undefined ? {} : { agent: agentDefinition(agent, context) }),
  };
}

function agentDefinition(agent: AgentDefinition, context: StepKeyContext): Record<string, unknown> {
  return {
    name: agent.name,
    system: agent.system,
    model: agent.model,
    maxSteps: agent.maxSteps,
    maxTokens: agent.maxTokens,
    tools: agent.tools.map((tool) => (typeof tool === "string" ? toolList([tool], context)[0] : wireTool(tool))),
    mcp: agent.mcp,
    responseFormat:
      agent.responseFormat === undefined ? undefined : toJsonSchema(agent.responseFormat, `agent "${agent.name}"`),
  };
}

// A tool's name, description and schema do not change within a process: made once per name.
const LIBRARY_TOOLS = new Map<string, unknown>();

function toolList(names: readonly string[], context: StepKeyContext): unknown[] {
  return names.map((name) => {
    const slash = name.indexOf("/");
    if (slash > 0) return { name, mcp: context.workflow.mcp?.[name.slice(0, slash)] };
    let tool = LIBRARY_TOOLS.get(name);
    if (tool === undefined) {
      try {
        // Only the definition is read; the workspace is never touched.
        tool = wireTool(createTools([name], { workspace: tmpdir() })[0]!);
      } catch {
        tool = { name, unknown: true };
      }
      LIBRARY_TOOLS.set(name, tool);
    }
    return tool;
  });
}
