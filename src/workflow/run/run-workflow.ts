import { randomUUID } from "node:crypto";
import { access, mkdir, writeFile } from "node:fs/promises";
import path from "node:path";
import { ConfigError } from "../../errors.js";
import { batchBodyFor, resolveRunInputs } from "../batch/batch-run-body.js";
import type { Workflow } from "../load/load-workflow.js";
import { executeRun } from "./execute-run.js";
import type { RunStarted } from "./journal-records.js";
import { Replay } from "./replay.js";
import { RunJournal } from "./run-journal.js";
import type { RunResult, RunWorkflowOptions } from "./run-options.js";

/** Name of the workflow copy a run directory keeps, which resume runs from. */
export const WORKFLOW_COPY = "workflow.yaml";
/** Name of the journal in a run directory. */
export const JOURNAL_FILE = "journal.jsonl";

/**
 * Runs a loaded workflow in a new run directory. Resolves when the run ends: `done`, `stopped`
 * (budget or signal; resumable) or `failed` (resumable once the cause is fixed). Bad inputs and a
 * run directory that already holds a run are thrown before anything starts.
 */
export async function runWorkflow(workflow: Workflow, options: RunWorkflowOptions = {}): Promise<RunResult> {
  const inputs = resolveRunInputs(workflow, options.inputs, options.items);
  // Before the run directory exists: a batch whose items file is missing or of no known format is bad input.
  const body = options.body ?? (await batchBodyFor(workflow, inputs, options));
  if (options.budgetYuan !== undefined && !(options.budgetYuan > 0)) {
    throw new ConfigError(`Expected the budget to be above 0 yuan, got ${options.budgetYuan}.`);
  }
  const startedAt = new Date();
  const runDir = path.resolve(options.outDir ?? path.join("runs", `${stamp(startedAt)}-${workflow.name}`));
  const journalPath = path.join(runDir, JOURNAL_FILE);
  if (await exists(journalPath)) {
    throw new ConfigError(`${runDir} already holds a run. Finish it with \`svc-flow resume ${runDir}\`, or choose another --out.`, { code: "run_dir_taken" });
  }
  await mkdir(runDir, { recursive: true });
  await writeFile(path.join(runDir, WORKFLOW_COPY), workflow.text);
  const budgetYuan = options.budgetYuan ?? workflow.definition.budget?.maxYuan;
  const start: RunStarted = {
    type: "run-started",
    version: 1,
    runId: randomUUID(),
    name: workflow.name,
    workflowHash: workflow.hash,
    workflowFile: workflow.file,
    baseDir: workflow.baseDir,
    inputs,
    startedAt: startedAt.toISOString(),
    ...(budgetYuan === undefined ? {} : { budgetYuan }),
  };
  const journal = await RunJournal.open(journalPath);
  await journal.append(start);
  return executeRun({ workflow, runDir, journal, replay: Replay.fresh(start), resumed: false }, body === undefined ? options : { ...options, body });
}

function stamp(date: Date): string {
  return date.toISOString().replace(/\.\d+Z$/, "").replace(/[-:]/g, "").replace("T", "-");
}

async function exists(file: string): Promise<boolean> {
  return access(file).then(
    () => true,
    () => false,
  );
}
