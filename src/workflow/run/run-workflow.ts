import { mkdir } from "node:fs/promises";
import path from "node:path";
import { ConfigError } from "../../errors.js";
import { connectConfiguredGateway } from "../connect-gateway.js";
import { BATCH_KEY, batchBodyFor, resolveRunInputs } from "../batch/batch-run-body.js";
import { checkRunInputs, type Workflow } from "../load/load-workflow.js";
import { subtreeIds } from "../load/walk-steps.js";
import { finishedStepsByKey } from "./finished-steps.js";
import { executeRun } from "./execute-run.js";
import { Replay } from "./replay.js";
import { RunDirLock } from "./run-dir-lock.js";
import { RunJournal } from "./run-journal.js";
import type { RunResult, RunWorkflowOptions } from "./run-options.js";

import { JOURNAL_FILE, startRunDirectory } from "./start-run-directory.js";
import { shellWord } from "../shell-word.js";

export { JOURNAL_FILE, WORKFLOW_COPY } from "./start-run-directory.js";

/**
 * Runs a loaded workflow in a new run directory. Resolves when the run ends: `done`, `stopped`
 * (budget or signal; resumable) or `failed` (resumable once the cause is fixed). Bad inputs and a
 * run directory that already holds a run are thrown before anything starts.
 */
export async function runWorkflow(workflow: Workflow, options: RunWorkflowOptions = {}): Promise<RunResult> {
  const inputs = resolveRunInputs(workflow, options.inputs, options.items);
  checkRunInputs(workflow, inputs, options);
  // Before the run directory exists: a batch whose items file is missing or of no known format is bad input.
  const body = options.body ?? (await batchBodyFor(workflow, inputs, options));
  if (options.budgetYuan !== undefined && !(options.budgetYuan > 0)) {
    throw new ConfigError(`Expected the budget to be above 0 yuan, got ${options.budgetYuan}.`);
  }
  checkRerunFrom(workflow, options.rerunFrom);
  // Without a connect of its own (the composed runWorkflow's starts a local gateway), a run needs a configured
  // gateway: none, or half of one, is bad input, refused before the run directory exists.
  if (options.connect === undefined) {
    await connectConfiguredGateway({ ...options.gateway, ...(options.env === undefined ? {} : { env: options.env }) });
  }
  // Read (never locked) before the run directory exists: a source that is no run, or a live one, is bad input.
  const reuse = (options.reuse ?? []).map((dir) => path.resolve(dir));
  const finished = await finishedStepsByKey(reuse);
  const startedAt = new Date();
  const runDir = path.resolve(options.outDir ?? path.join("runs", `${stamp(startedAt)}-${workflow.name}`));
  await mkdir(runDir, { recursive: true });
  const lock = await RunDirLock.acquire(runDir, { takenHint: "Choose another --out." });
  try {
    const start = await startRunDirectory(workflow, {
      runDir,
      inputs,
      startedAt,
      budgetYuan: options.budgetYuan ?? workflow.definition.budget?.maxYuan,
      takenHint: `If it stopped before the end, finish it with \`svc-flow resume ${shellWord(runDir)}\`; to run it again, \`svc-flow rerun ${shellWord(runDir)}\`; or choose another --out.`,
    });
    const journal = await RunJournal.open(path.join(runDir, JOURNAL_FILE));
    const started = {
      ...start,
      ...(reuse.length === 0 ? {} : { reuse }),
      ...(options.rerunFrom === undefined ? {} : { rerunFrom: options.rerunFrom }),
    };
    await journal.append(started);
    return await executeRun(
      {
        workflow,
        runDir,
        journal,
        replay: Replay.fresh(started),
        records: [started],
        resumed: false,
        ...(body === undefined || options.body !== undefined ? {} : { batchKey: BATCH_KEY }),
        reuse: { finished, ...(options.rerunFrom === undefined ? {} : { rerunFrom: options.rerunFrom }) },
      },
      body === undefined ? options : { ...options, body },
    );
  } finally {
    await lock.release();
  }
}

function checkRerunFrom(workflow: Workflow, id: string | undefined): void {
  if (id === undefined) return;
  const ids = workflow.definition.steps.flatMap(subtreeIds);
  if (!ids.includes(id)) {
    throw new ConfigError(`There is no step "${id}" to rerun from. Steps: ${ids.join(", ")}.`, {
      code: "unknown_step",
    });
  }
}

function stamp(date: Date): string {
  return date
    .toISOString()
    .replace(/\.\d+Z$/, "")
    .replace(/[-:]/g, "")
    .replace("T", "-");
}
