import type { PriceOverrides } from "../../catalog/prices.js";
import { loadWorkflow } from "../load/load-workflow.js";
import type { RunOutcome, RunRequest, WorkflowRunner } from "../schedule/workflow-runner.js";
import { awaitRun } from "./await-run.js";
import { enqueueRun } from "./enqueue-run.js";
import { RunStore } from "./run-store.js";

/** Options of a QueueRunner: what every firing is enqueued with. */
export interface QueueRunnerOptions {
  /** Caps each firing across all workers (overriding the file's `budget.maxYuan`). */
  readonly budgetYuan?: number;
  /** Prices laid over the published ones (a price file's content, read once when the scheduler starts), stored with each firing. */
  readonly prices?: PriceOverrides;
  /** Under the budget, run calls to models without a price. Default: each file's `budget.allowUnpriced`. */
  readonly allowUnpriced?: boolean;
}

/**
 * Runs each scheduled firing on the workers: its items are enqueued on Redis, and the firing lasts
 * until every item has a result, so the scheduler's overlap policy still sees a run in progress.
 * On `signal` it stops waiting (the workers go on; `svc-flow resume RUN_ID --redis` finishes it).
 */
export class QueueRunner implements WorkflowRunner {
  readonly #redisURL: string;
  readonly #options: QueueRunnerOptions;

  constructor(redisURL: string, options: QueueRunnerOptions = {}) {
    this.#redisURL = redisURL;
    this.#options = options;
  }

  /** Enqueues one firing and waits for its items. */
  async run(request: RunRequest, { signal }: { signal: AbortSignal }): Promise<RunOutcome> {
    const { budgetYuan, prices, allowUnpriced } = this.#options;
    const workflow = await loadWorkflow(request.file, { budgetYuan, prices, allowUnpriced });
    const store = RunStore.connect(this.#redisURL);
    try {
      const run = await enqueueRun(store, workflow, {
        redisURL: this.#redisURL,
        outDir: request.runDir,
        budgetYuan,
        prices,
        allowUnpriced,
      });
      const result = await awaitRun(store, run.runId, { signal });
      const error =
        result.error !== undefined
          ? new Error(
              `${result.reason === "budget" ? "Stopped by the budget" : `Item ${result.error.index} failed`} (run ${run.runId}): ${result.error.message}`,
            )
          : result.status === "failed"
            ? new Error(`${result.failed} of ${result.total} item(s) failed (run ${run.runId}); see outputs.jsonl.`)
            : undefined;
      return {
        state: result.status,
        runDir: result.runDir,
        costYuan: result.costYuan,
        ...(error === undefined ? {} : { error }),
      };
    } finally {
      await store.close();
    }
  }
}
