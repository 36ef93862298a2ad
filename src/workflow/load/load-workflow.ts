import { createHash } from "node:crypto";
import { readFile, stat } from "node:fs/promises";
import path from "node:path";
import { AbortedError, ConfigError } from "../../errors.js";
import type { WorkflowDefinition } from "../schema/workflow-schema.js";
import { buildStepGraph, type StepNode } from "../step-graph.js";
import { WorkflowError } from "../workflow-error.js";
import { checkMedia } from "./check-media.js";
import { checkSchedule } from "./check-schedule.js";
import { checkModels } from "./check-models.js";
import { checkPricing, type PricingCheckOptions } from "./check-pricing.js";
import { checkStepFields } from "./check-step-fields.js";
import { checkStepReferences } from "./check-step-references.js";
import { parseWorkflowYaml } from "./parse-workflow-yaml.js";
import { validateWorkflowShape } from "./validate-shape.js";
import { stepPlaces } from "./walk-steps.js";
import type { RawIssue } from "./zod-issues.js";

/** The largest workflow file loaded: bigger ones are refused before they are read (20,000 steps is about 2 MB). */
export const MAX_WORKFLOW_BYTES = 10 * 1024 * 1024;

/** A workflow file that passed every load-time check. */
export interface Workflow {
  /** The file as named (absolute), or `<inline>`. */
  readonly file: string;
  /** Folder that relative media paths are read from. */
  readonly baseDir: string;
  /** The `name:`, or the file name without its extension. */
  readonly name: string;
  /** The file's text, as loaded. */
  readonly text: string;
  /** sha256 of the parsed content (comments, layout and the `tools:` settings do not count); a journal belongs to one hash. */
  readonly hash: string;
  readonly definition: WorkflowDefinition;
  /** The top-level steps with what each waits for; built when first read (a run reads it, `validate` does not). */
  readonly graph: readonly StepNode[];
}

/** Options of loadWorkflow; the money settings are the run's (a budgeted file whose models have no price is refused). */
export interface LoadWorkflowOptions extends PricingCheckOptions {
  /** Name shown in errors for inline text. Default `<inline>`. */
  readonly fileName?: string;
  /** Folder for relative media paths of inline text. Default: the current directory. */
  readonly baseDir?: string;
  /** Models the key may call (live `GET /models`); without it, ids are checked against the catalogue only. */
  readonly models?: readonly string[];
  /** Folder file names in errors are shown relative to. Default: the current directory. */
  readonly cwd?: string;
  /** Names `agent:` may use (pass the names of agents you give the run). Default: the ready agents in agents/. */
  readonly agentNames?: readonly string[];
  readonly signal?: AbortSignal;
}

/**
 * Loads and checks a workflow: a path to a .yaml/.yml/.json file, or the text itself (anything with
 * a line break). Every problem is reported at once, each with file, line, column and path; nothing is called.
 */
export async function loadWorkflow(pathOrText: string, options: LoadWorkflowOptions = {}): Promise<Workflow> {
  if (pathOrText.includes("\n")) return parseWorkflow(pathOrText, options);
  const file = path.resolve(options.cwd ?? process.cwd(), pathOrText);
  let text: string;
  try {
    const { size } = await stat(file);
    if (size > MAX_WORKFLOW_BYTES) {
      throw new ConfigError(
        `The workflow ${pathOrText} is ${(size / 1024 / 1024).toFixed(1)} MB; a workflow file may be at most ${MAX_WORKFLOW_BYTES / 1024 / 1024} MB. Put large data in an items file (--items) or in files the steps read.`,
        { code: "invalid_workflow" },
      );
    }
    text = await readFile(file, { encoding: "utf8", signal: options.signal });
  } catch (error) {
    if (error instanceof ConfigError) throw error;
    // Ctrl-C while reading is an interruption, not a bad file.
    if (options.signal?.aborted === true)
      throw new AbortedError("Interrupted while loading the workflow; nothing was started.", { cause: error });
    const code = (error as { code?: unknown }).code;
    const reason =
      code === "ENOENT" ? "there is no such file" : code === "EISDIR" ? "it is a folder" : (error as Error).message;
    throw new ConfigError(`Cannot read the workflow ${pathOrText}: ${reason}.`, {
      code: "invalid_workflow",
      cause: error,
    });
  }
  return parseWorkflow(text, { ...options, fileName: file, baseDir: path.dirname(file) });
}

/** Checks workflow text (see loadWorkflow), synchronously. */
export function parseWorkflow(text: string, options: LoadWorkflowOptions = {}): Workflow {
  const file = options.fileName ?? "<inline>";
  const shown = file === "<inline>" ? file : path.relative(options.cwd ?? process.cwd(), file) || file;
  const baseDir = options.baseDir ?? process.cwd();
  const parsed = parseWorkflowYaml(text, shown);
  const fail = (issues: readonly RawIssue[]): never => {
    throw new WorkflowError(
      issues.map((issue) => ({
        file: shown,
        ...parsed.locate(issue.path, { key: issue.key, offsetInString: issue.offsetInString }),
        path: issue.key === undefined ? issue.path : [...issue.path, issue.key],
        message: issue.message,
      })),
    );
  };
  // A shape problem does not hide the others: what passed is checked too, and all are reported at once.
  const shape = validateWorkflowShape(parsed.value);
  const definition = shape.definition ?? shape.partial;
  if (definition === undefined) return fail(shape.issues);
  const places = stepPlaces(definition.steps);
  const references = checkStepReferences(definition, places);
  const issues = [
    ...shape.issues,
    ...checkStepFields(definition, options, places),
    ...references.issues,
    ...checkModels(definition, options, places),
    ...checkMedia(definition, baseDir, undefined, places),
    ...checkSchedule(definition),
    ...checkPricing(definition, options, places),
  ];
  if (issues.length > 0) fail(sortByPlace(issues, parsed.locate));
  const name =
    definition.name ?? (file === "<inline>" ? "workflow" : path.basename(file).replace(/\.(ya?ml|json)$/i, ""));
  const content = withoutToolSettings(parsed.value);
  let hash: string | undefined;
  let graph: StepNode[] | undefined;
  return {
    file,
    baseDir,
    name,
    text,
    // Only a run needs the hash and the graph; `validate` of a large file need not pay for them.
    get hash() {
      hash ??= hashValue(content);
      return hash;
    },
    definition,
    get graph() {
      graph ??= buildStepGraph(definition.steps, ["steps"], (step) => references.stepReads.get(step) ?? []);
      return graph;
    },
  };
}

// `tools:` says how the run may reach things, not what it does (like --budget), so a run refused a
// fetch can be resumed with the setting changed: `svc-flow resume RUN_DIR --workflow FILE`.
function withoutToolSettings(value: unknown): unknown {
  if (value === null || typeof value !== "object" || !("tools" in value)) return value;
  const { tools: _settings, ...rest } = value as Record<string, unknown>;
  return rest;
}

function sortByPlace(issues: readonly RawIssue[], locate: ReturnType<typeof parseWorkflowYaml>["locate"]): RawIssue[] {
  const place = (issue: RawIssue) => locate(issue.path, { key: issue.key });
  return [...issues].sort((a, b) => place(a).line - place(b).line || place(a).column - place(b).column);
}

/**
 * Checks what a run adds to a loaded file before the run directory is made and anything is sent:
 * the media its input values feed (a `--input photo=...` that is missing, or not the image it
 * claims), and its budget against the models' prices; every problem at once.
 */
export function checkRunInputs(
  workflow: Workflow,
  inputs: Readonly<Record<string, unknown>>,
  pricing: PricingCheckOptions = {},
): void {
  const issues = [
    ...checkMedia(workflow.definition, workflow.baseDir, inputs),
    ...checkPricing(workflow.definition, pricing),
  ];
  if (issues.length === 0) return;
  const shown =
    workflow.file === "<inline>" ? workflow.file : path.relative(process.cwd(), workflow.file) || workflow.file;
  const parsed = parseWorkflowYaml(workflow.text, shown);
  throw new WorkflowError(
    issues.map((issue) => ({ file: shown, ...parsed.locate(issue.path), path: issue.path, message: issue.message })),
  );
}

/** sha256 of a JSON-like value with keys sorted, so layout and key order do not change it. */
export function hashValue(value: unknown): string {
  return createHash("sha256").update(canonicalJson(value)).digest("hex");
}

function canonicalJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(",")}]`;
  if (value !== null && typeof value === "object") {
    const entries = Object.entries(value).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    return `{${entries.map(([key, item]) => `${JSON.stringify(key)}:${canonicalJson(item)}`).join(",")}}`;
  }
  return JSON.stringify(value) ?? "null";
}
