import { readFile, stat, writeFile } from "node:fs/promises";
import path from "node:path";
import { ConfigError } from "../../errors.js";
import { BATCH_KEY, finishedRowSteps, resumedBatchBody } from "../batch/batch-run-body.js";
import { DISTRIBUTED_FILE } from "../distributed/distributed-file.js";
import { loadWorkflow, parseWorkflow, type LoadWorkflowOptions, type Workflow } from "../load/load-workflow.js";
import { executeRun } from "./execute-run.js";
import { finishedStepsByKey } from "./finished-steps.js";
import { Replay } from "./replay.js";
import { RunDirLock } from "./run-dir-lock.js";
import { RunJournal } from "./run-journal.js";
import { reportReads, reportShowsCostsOf } from "./report-records.js";
import { RestoredCosts } from "./restored-costs.js";
import type { JournalRecord } from "./journal-records.js";
import type { ExecuteOptions, RunResult } from "./run-options.js";
import { JOURNAL_FILE, WORKFLOW_COPY } from "./run-workflow.js";

/** Options of resumeWorkflow. */
export interface ResumeWorkflowOptions extends ExecuteOptions, Pick<LoadWorkflowOptions, "models" | "agentNames"> {
  /** The workflow to resume with (a path or a loaded one). Default: the copy in the run directory. It must be the same workflow. */
  readonly workflow?: string | Workflow;
}

/**
 * Finishes a run from its directory: steps, map items and music jobs in the journal are not run
 * (nor paid) again; the rest runs with the inputs the run started with. A raised `budgetYuan` lets
 * a run stopped by its budget go on. A workflow that differs from the journal's is refused.
 */
export async function resumeWorkflow(runDir: string, options: ResumeWorkflowOptions = {}): Promise<RunResult> {
  const directory = path.resolve(runDir);
  // Its items belong to the workers: resumed here, they would run (and be paid for) again on this machine.
  const distributed = await readFile(path.join(directory, DISTRIBUTED_FILE), "utf8").then(
    (text) => (JSON.parse(text) as { runId: string }).runId,
    () => undefined,
  );
  if (distributed !== undefined)
    throw new ConfigError(
      `${directory} is a distributed run (${distributed}): resume it on its workers with \`svc-flow resume ${distributed} --redis URL\`.`,
      { code: "invalid_run_dir" },
    );
  // Before the journal is read (and its torn tail cut): a second process must not touch a live run.
  const lock = await RunDirLock.acquire(directory);
  try {
    return await resumeOwned(directory, options);
  } finally {
    await lock.release();
  }
}

async function resumeOwned(directory: string, options: ResumeWorkflowOptions): Promise<RunResult> {
  // A batch's finished rows never run again: the replay keeps none of their records.
  const forget = await finishedRowSteps(directory);
  // A batch's rows are keyed `items[N].…`; a batch killed before its batch.json was written had billed no row.
  const batchKey = forget === undefined || options.body !== undefined ? undefined : BATCH_KEY;
  const showsCostsOf = reportShowsCostsOf(batchKey);
  // Every bill goes to the ledger and the cost-calls file as the journal is read, so none is held for long.
  const restored = new RestoredCosts(directory, (entry) => showsCostsOf(entry.tags.step));
  try {
    return await resumeRestoring(directory, options, forget, restored);
  } catch (error) {
    await restored.calls.remove();
    throw error;
  }
}

async function resumeRestoring(
  directory: string,
  options: ResumeWorkflowOptions,
  forget: ((key: string) => boolean) | undefined,
  restored: RestoredCosts,
): Promise<RunResult> {
  const journalPath = path.join(directory, JOURNAL_FILE);
  // What the report reads of the journal, beside what the replay indexes (a batch's bills and intents are most of it).
  const earlier: JournalRecord[] = [];
  const reads = reportReads(forget === undefined ? undefined : BATCH_KEY);
  const replay = await Replay.read(journalPath, {
    repair: true,
    ...(forget === undefined ? {} : { forget }),
    each: (record) => {
      if (record.type === "cost") restored.add(record.entry);
      if (reads(record)) earlier.push(record);
    },
  });
  const workflow = await workflowFor(directory, replay, options);
  if (workflow.hash !== replay.start.workflowHash) {
    throw new ConfigError(
      `${directory} was started from a different version of the workflow (${replay.start.workflowHash.slice(0, 12)}, now ${workflow.hash.slice(0, 12)}), ` +
        `so its journal does not fit. Resume with the run's own copy (${path.join(directory, WORKFLOW_COPY)}, the default), or start a new run with \`svc-flow run\`.`,
      { code: "workflow_changed" },
    );
  }
  if (options.budgetYuan !== undefined && !(options.budgetYuan > 0)) {
    throw new ConfigError(`Expected the budget to be above 0 yuan, got ${options.budgetYuan}.`);
  }
  // A done run has nothing left: resuming it again (a second resume that lost the race) adds no records.
  if (replay.finished?.status === "done" && replay.last.type === "run-finished") {
    await restored.calls.remove();
    return doneResult(directory, replay, restored);
  }
  // A run started with --reuse goes on taking what its sources finished (those still there).
  const finished = await finishedStepsByKey(await existing(replay.start.reuse ?? []));
  const { rerunFrom } = replay.start;
  // The copy is what the next resume runs, so it keeps what this one was given (the hash leaves `tools:` out).
  if (options.workflow !== undefined) await writeFile(path.join(directory, WORKFLOW_COPY), workflow.text);
  const journal = await RunJournal.open(journalPath);
  const resumedRecord: JournalRecord = {
    type: "run-resumed",
    at: new Date().toISOString(),
    ...(options.budgetYuan === undefined ? {} : { budgetYuan: options.budgetYuan }),
    pid: process.pid,
  };
  await journal.append(resumedRecord);
  replay.add(resumedRecord);
  earlier.push(resumedRecord);
  const body = options.body ?? (await resumedBatchBody(directory, workflow, replay.start.inputs, options));
  return executeRun(
    {
      workflow,
      runDir: directory,
      journal,
      replay,
      records: earlier,
      restored,
      resumed: true,
      ...(body === undefined || options.body !== undefined ? {} : { batchKey: BATCH_KEY }),
      reuse: { finished, ...(rerunFrom === undefined ? {} : { rerunFrom }) },
    },
    body === undefined ? options : { ...options, body },
  );
}

async function workflowFor(directory: string, replay: Replay, resumeOptions: ResumeWorkflowOptions): Promise<Workflow> {
  if (typeof resumeOptions.workflow === "object") return resumeOptions.workflow;
  // The load-time check (budget vs unpriced models) uses the budget the run goes on with: the one
  // given now, else the one the run was started (or last resumed) with.
  const budgetYuan = resumeOptions.budgetYuan ?? replay.budgetYuan;
  const options = budgetYuan === undefined ? resumeOptions : { ...resumeOptions, budgetYuan };
  if (typeof options.workflow === "string") return loadWorkflow(options.workflow, options);
  const copy = path.join(directory, WORKFLOW_COPY);
  const text = await readFile(copy, "utf8").catch((error: unknown) => {
    throw new ConfigError(
      `${copy} is missing, so the run cannot be resumed from its own copy. Pass the workflow file.`,
      { code: "invalid_run_dir", cause: error },
    );
  });
  // Relative media paths keep meaning what they meant: the original file's folder.
  return parseWorkflow(text, { ...options, fileName: copy, baseDir: replay.start.baseDir });
}

async function existing(runDirs: readonly string[]): Promise<string[]> {
  const found = await Promise.all(
    runDirs.map((dir) =>
      stat(path.join(dir, JOURNAL_FILE)).then(
        () => true,
        () => false,
      ),
    ),
  );
  return runDirs.filter((_, index) => found[index]);
}

async function doneResult(directory: string, replay: Replay, restored: RestoredCosts): Promise<RunResult> {
  const outputs = await readFile(path.join(directory, "outputs.json"), "utf8").then(
    (text) => JSON.parse(text) as Record<string, unknown>,
    () => undefined,
  );
  const items = replay.finished?.items;
  return {
    runDir: directory,
    runId: replay.start.runId,
    status: "done",
    cost: restored.ledger.summary(),
    ...(outputs === undefined ? {} : { outputs }),
    ...(items === undefined ? {} : { items }),
  };
}
