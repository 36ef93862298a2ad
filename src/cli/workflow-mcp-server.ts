import { readdir, realpath } from "node:fs/promises";
import path from "node:path";
import { Server } from "@modelcontextprotocol/sdk/server/index.js";
import { CallToolRequestSchema, ListToolsRequestSchema, type CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import { SvcFlowError, redactSecrets } from "../errors.js";
import { fileInputNames } from "../workflow/load/file-inputs.js";
import { loadWorkflow, type Workflow } from "../workflow/load/load-workflow.js";
import { mediaSource } from "../workflow/media/media-source.js";
import type { InputSpec } from "../workflow/schema/workflow-schema.js";
import type { RunWorkflowOptions } from "../workflow/run/run-options.js";
import { publicOnlyAgent } from "../net/public-only-agent.js";
import { runWorkflow } from "../workflow/run/run-workflow.js";
import { packageVersion } from "./package-version.js";
import { shellWord } from "../workflow/shell-word.js";

/** Options of createWorkflowMcpServer. */
export interface WorkflowMcpServerOptions {
  /** The folder whose .yaml/.yml workflow files become tools. */
  readonly workflowsDir: string;
  /** Where each call's run directory goes (runs/<time>-<name> under it). */
  readonly cwd: string;
  /** Gateway, budget and environment for the runs; the run directory is chosen per call. */
  readonly run: Omit<RunWorkflowOptions, "inputs" | "outDir">;
  /** The folders a call's file inputs (media, items) may name files in; default the workflows folder and `cwd`. */
  readonly readableDirs?: readonly string[];
  /** Receives a line for each file that is not a valid workflow (it is left out). */
  readonly warn: (line: string) => void;
}

/**
 * An MCP server (the SDK's) with one tool per workflow file in a folder: the workflow's inputs are
 * the tool's JSON Schema; a call runs the workflow and answers with its outputs (as JSON, and as
 * structured content), with every artifact as a resource link to its file.
 */
export async function createWorkflowMcpServer(
  options: WorkflowMcpServerOptions,
): Promise<{ server: Server; workflows: Map<string, Workflow> }> {
  const workflows = await loadWorkflows(options);
  const server = new Server({ name: "svc-flow", version: packageVersion() }, { capabilities: { tools: {} } });
  server.setRequestHandler(ListToolsRequestSchema, async () => ({
    tools: [...workflows.entries()].map(([name, workflow]) => ({
      name,
      description: workflow.definition.description ?? `Runs the svc-flow workflow ${path.basename(workflow.file)}.`,
      inputSchema: inputSchemaOf(workflow),
    })),
  }));
  server.setRequestHandler(CallToolRequestSchema, async (request, extra): Promise<CallToolResult> => {
    const workflow = workflows.get(request.params.name);
    if (workflow === undefined)
      return failure(`There is no workflow "${request.params.name}". Tools: ${[...workflows.keys()].join(", ")}.`);
    const outDir = path.join(options.cwd, "runs", `${stamp()}-${workflow.name}`);
    const readable = options.readableDirs ?? [options.workflowsDir, options.cwd];
    // The caller is a model's client: a path it passes must not make the run read (and send) any file on the machine.
    const outside = await fileOutside(workflow, request.params.arguments ?? {}, readable);
    if (outside !== undefined)
      return failure(
        `Input "${outside.input}" names ${outside.path}, outside the folders this server reads files from (${readable.join(", ")}). Put the file in one of them, or start the server with --allow-dir ${path.dirname(outside.path)}.`,
      );
    try {
      const result = await runWorkflow(workflow, {
        ...options.run,
        inputs: request.params.arguments ?? {},
        outDir,
        signal: extra.signal,
        // Nor may a link it passes make the run fetch from this machine or its private network.
        mediaDispatcher: publicOnlyAgent(),
      });
      if (result.status === "waiting") {
        const steps = (result.waiting ?? []).map((waiting) => waiting.key).join(", ");
        return failure(
          `The run waits for a decision on ${steps}: answer with svc-flow approve ${shellWord(outDir)} STEP_ID. Run directory: ${outDir}.`,
        );
      }
      if (result.status !== "done")
        return failure(
          `The run ${result.status} (${result.error?.code ?? "error"}): ${result.error?.message ?? ""} Run directory: ${outDir}.`,
        );
      const outputs = result.outputs ?? {};
      return {
        content: [{ type: "text", text: JSON.stringify(outputs, null, 2) }, ...artifactLinks(outputs, outDir)],
        structuredContent: { ...outputs },
      };
    } catch (error) {
      return failure(error instanceof SvcFlowError ? `${error.message} [${error.code}]` : String(error));
    }
  });
  return { server, workflows };
}

/** The first file a call's arguments would have `workflow` read outside `dirs` (symlinks followed), by input. */
async function fileOutside(
  workflow: Workflow,
  args: Readonly<Record<string, unknown>>,
  dirs: readonly string[],
): Promise<{ input: string; path: string } | undefined> {
  const roots = await Promise.all(dirs.map((dir) => realpath(dir).catch(() => path.resolve(dir))));
  for (const input of fileInputNames(workflow.definition)) {
    for (const value of [args[input]].flat(2)) {
      const source = mediaSource(value, { baseDir: workflow.baseDir });
      if (typeof source === "string" || source.type !== "file") continue;
      const real = await realpath(source.path).catch(() => source.path);
      if (!roots.some((root) => real === root || real.startsWith(`${root}${path.sep}`)))
        return { input, path: source.path };
    }
  }
  return undefined;
}

async function loadWorkflows(options: WorkflowMcpServerOptions): Promise<Map<string, Workflow>> {
  const files = (await readdir(options.workflowsDir)).filter((file) => /\.ya?ml$/i.test(file)).sort();
  const workflows = new Map<string, Workflow>();
  for (const file of files) {
    try {
      const workflow = await loadWorkflow(path.join(options.workflowsDir, file), { cwd: options.cwd });
      workflows.set(workflow.name.replace(/[^A-Za-z0-9_-]/g, "_"), workflow);
    } catch (error) {
      options.warn(`svc-flow mcp serve: ${file} is left out: ${redactSecrets((error as Error).message)}`);
    }
  }
  return workflows;
}

/** A workflow's `inputs:` as the JSON Schema of a tool's arguments. */
export function inputSchemaOf(workflow: Workflow): {
  type: "object";
  properties: Record<string, object>;
  required: string[];
} {
  const inputs = Object.entries(workflow.definition.inputs ?? {});
  return {
    type: "object",
    properties: Object.fromEntries(inputs.map(([name, spec]) => [name, propertyOf(spec)])),
    required: inputs.filter(([, spec]) => spec.default === undefined && spec.optional !== true).map(([name]) => name),
  };
}

function propertyOf(spec: InputSpec): Record<string, unknown> {
  // An items input is a .jsonl/.csv file path, so a string on the wire.
  const type = spec.type === undefined || spec.type === "items" ? "string" : spec.type;
  return {
    type,
    ...(spec.description === undefined ? {} : { description: spec.description }),
    ...(spec.enum === undefined ? {} : { enum: spec.enum }),
    ...(spec.default === undefined ? {} : { default: spec.default }),
  };
}

function artifactLinks(value: unknown, runDir: string): CallToolResult["content"] {
  const links: CallToolResult["content"] = [];
  const seen = new Set<string>();
  const visit = (node: unknown) => {
    if (Array.isArray(node)) node.forEach(visit);
    else if (node !== null && typeof node === "object") {
      const artifact = (node as { artifact?: unknown; mime?: unknown }).artifact;
      if (typeof artifact === "string" && /^artifacts\//.test(artifact) && !seen.has(artifact)) {
        seen.add(artifact);
        const mime = (node as { mime?: unknown }).mime;
        links.push({
          type: "resource_link",
          uri: `file://${path.join(runDir, artifact)}`,
          name: path.basename(artifact),
          ...(typeof mime === "string" ? { mimeType: mime } : {}),
        });
      }
      Object.values(node).forEach(visit);
    }
  };
  visit(value);
  return links;
}

function failure(text: string): CallToolResult {
  return { content: [{ type: "text", text: redactSecrets(text) }], isError: true };
}

function stamp(): string {
  return (
    new Date()
      .toISOString()
      .replace(/\.\d+Z$/, "")
      .replace(/[-:]/g, "")
      .replace("T", "-") + `-${process.hrtime.bigint() % 1000n}`
  );
}
