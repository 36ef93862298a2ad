import { readFile } from "node:fs/promises";
import path from "node:path";
import { ConfigError } from "../../errors.js";
import { loadWorkflow, parseWorkflow, type LoadWorkflowOptions, type Workflow } from "../load/load-workflow.js";
import { checkReusable } from "./finished-steps.js";
import { Replay } from "./replay.js";
import type { RunResult, RunWorkflowOptions } from "./run-options.js";
import { runWorkflow } from "./run-workflow.js";
import { JOURNAL_FILE, WORKFLOW_COPY } from "./start-run-directory.js";

/** Options of rerunWorkflow: those of runWorkflow, and the workflow to run instead of the run's own copy. */
export interface RerunWorkflowOptions extends RunWorkflowOptions, Pick<LoadWorkflowOptions, "models" | "agentNames"> {
  /** The workflow to run (a path or a loaded one), e.g. an edited copy. Default: the run's own copy (workflow.yaml). */
  readonly workflow?: string | Workflow;
}

/**
 * Runs a run's workflow again in a new run directory, taking every step of `runDir` (and of any other
 * `reuse` directory) whose step key still matches, at no cost; the rest runs. The inputs are the
 * run's own, those the workflow still declares, with `inputs` laid over them. `rerunFrom` runs that
 * step and everything that reads it again. `runDir` is only read: no lock is taken.
 */
export async function rerunWorkflow(runDir: string, options: RerunWorkflowOptions = {}): Promise<RunResult> {
  const directory = path.resolve(runDir);
  await checkReusable(directory);
  const { start } = await Replay.read(path.join(directory, JOURNAL_FILE));
  const workflow = await workflowFor(directory, start.baseDir, options);
  const declared = new Set(Object.keys(workflow.definition.inputs ?? {}));
  const kept = Object.fromEntries(Object.entries(start.inputs).filter(([name]) => declared.has(name)));
  return runWorkflow(workflow, {
    ...options,
    inputs: { ...kept, ...options.inputs },
    reuse: [directory, ...(options.reuse ?? []).filter((dir) => path.resolve(dir) !== directory)],
  });
}

async function workflowFor(directory: string, baseDir: string, options: RerunWorkflowOptions): Promise<Workflow> {
  if (typeof options.workflow === "object") return options.workflow;
  if (typeof options.workflow === "string") return loadWorkflow(options.workflow, options);
  const copy = path.join(directory, WORKFLOW_COPY);
  const text = await readFile(copy, "utf8").catch((error: unknown) => {
    throw new ConfigError(
      `${copy} is missing, so the run cannot be run again from its own copy. Pass --workflow FILE.`,
      {
        code: "invalid_run_dir",
        cause: error,
      },
    );
  });
  // Relative media paths keep meaning what they meant: the original file's folder.
  return parseWorkflow(text, { ...options, fileName: copy, baseDir });
}
