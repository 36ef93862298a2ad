import { loadWorkflow } from "../load/load-workflow.js";
import type { RunOutcome, RunRequest, WorkflowRunner } from "../schedule/workflow-runner.js";
import { awaitRun } from "./await-run.js";
import { enqueueRun } from "./enqueue-run.js";
import { RunStore } from "./run-store.js";

/**
 * Runs each scheduled firing on the workers: its items are enqueued on Redis, and the firing lasts
 * until every item has a result, so the scheduler's overlap policy still sees a run in progress.
 * On `signal` it stops waiting (the workers go on; `svc-flow resume RUN_ID --redis` finishes it).
 */
export class QueueRunner implements WorkflowRunner {
  readonly #redisURL: string;
  readonly #budgetYuan: number | undefined;

  /** `budgetYuan` caps each firing across all workers (overriding the file's `budget.maxYuan`). */
  constructor(redisURL: string, options: { budgetYuan?: number } = {}) {
    this.#redisURL = redisURL;
    this.#budgetYuan = options.budgetYuan;
  }

  /** Enqueues one firing and waits for its items. */
  async run(request: RunRequest, { signal }: { signal: AbortSignal }): Promise<RunOutcome> {
    const workflow = await loadWorkflow(request.file);
    const store = RunStore.connect(this.#redisURL);
    try {
      const budget = this.#budgetYuan === undefined ? {} : { budgetYuan: this.#budgetYuan };
      const run = await enqueueRun(store, workflow, { redisURL: this.#redisURL, outDir: request.runDir, ...budget });
      const result = await awaitRun(store, run.runId, { signal });
      const error =
        result.error !== undefined
          ? new Error(`${result.reason === "budget" ? "Stopped by the budget" : `Item ${result.error.index} failed`} (run ${run.runId}): ${result.error.message}`)
          : result.status === "failed"
            ? new Error(`${result.failed} of ${result.total} item(s) failed (run ${run.runId}); see outputs.jsonl.`)
            : undefined;
      return { state: result.status, runDir: result.runDir, costYuan: result.costYuan, ...(error === undefined ? {} : { error }) };
    } finally {
      await store.close();
    }
  }
}
