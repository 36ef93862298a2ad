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

  constructor(redisURL: string) {
    this.#redisURL = redisURL;
  }

  /** Enqueues one firing and waits for its items. */
  async run(request: RunRequest, { signal }: { signal: AbortSignal }): Promise<RunOutcome> {
    const workflow = await loadWorkflow(request.file);
    const store = RunStore.connect(this.#redisURL);
    try {
      const run = await enqueueRun(store, workflow, { redisURL: this.#redisURL, outDir: request.runDir });
      const result = await awaitRun(store, run.runId, { signal });
      const error = result.status === "failed" ? new Error(`${result.failed} of ${result.total} item(s) failed (run ${run.runId}); see outputs.jsonl.`) : undefined;
      return { state: result.status, runDir: result.runDir, costYuan: result.costYuan, ...(error === undefined ? {} : { error }) };
    } finally {
      await store.close();
    }
  }
}
