import { randomUUID } from "node:crypto";
import { access, mkdir, writeFile } from "node:fs/promises";
import path from "node:path";
import { ConfigError } from "../../errors.js";
import type { Workflow } from "../load/load-workflow.js";
import type { RunStarted } from "./journal-records.js";

/** Name of the workflow copy a run directory keeps, which resume runs from. */
export const WORKFLOW_COPY = "workflow.yaml";
/** Name of the journal in a run directory. */
export const JOURNAL_FILE = "journal.jsonl";

/** What a new run directory needs: where, and what the run starts with. */
export interface StartRunDirectoryOptions {
  readonly runDir: string;
  readonly inputs: Record<string, unknown>;
  readonly startedAt?: Date;
  readonly budgetYuan?: number;
  /** Appended to the "already holds a run" message: how to go on with that run instead. */
  readonly takenHint: string;
}

/**
 * Makes a new run directory holding a copy of the workflow, and builds its `run-started` record.
 * Refuses a directory that already holds a run (a journal), so no run is ever overwritten.
 */
export async function startRunDirectory(workflow: Workflow, options: StartRunDirectoryOptions): Promise<RunStarted> {
  const runDir = path.resolve(options.runDir);
  if (
    await access(path.join(runDir, JOURNAL_FILE)).then(
      () => true,
      () => false,
    )
  ) {
    throw new ConfigError(`${runDir} already holds a run. ${options.takenHint}`, { code: "run_dir_taken" });
  }
  await mkdir(runDir, { recursive: true });
  await writeFile(path.join(runDir, WORKFLOW_COPY), workflow.text);
  return {
    type: "run-started",
    version: 1,
    runId: randomUUID(),
    name: workflow.name,
    workflowHash: workflow.hash,
    workflowFile: workflow.file,
    baseDir: workflow.baseDir,
    inputs: options.inputs,
    startedAt: (options.startedAt ?? new Date()).toISOString(),
    ...(options.budgetYuan === undefined ? {} : { budgetYuan: options.budgetYuan }),
    pid: process.pid,
  };
}
