import { loadWorkflow } from "../load/load-workflow.js";
import type { RunWorkflowOptions } from "../run/run-options.js";
import { runWorkflow } from "../run/run-workflow.js";
import type { RunOutcome, RunRequest, WorkflowRunner } from "./workflow-runner.js";

/** What every scheduled run gets: gateway, budget, prices, report writer... (not its directory or signal). */
export type LocalRunOptions = Omit<RunWorkflowOptions, "outDir" | "signal" | "items">;

/**
 * Runs each firing in this process with `runWorkflow`: a normal run in the directory the scheduler
 * made, with its own budget, journal, cost.json and report. The file is loaded afresh each time,
 * so edits to the steps take effect at the next firing (edits to `schedule:` need a restart).
 */
export class LocalRunner implements WorkflowRunner {
  readonly #options: LocalRunOptions;

  constructor(options: LocalRunOptions = {}) {
    this.#options = options;
  }

  /** Runs one firing to its end; on `signal` the run stops resumably and this resolves `stopped`. */
  async run(request: RunRequest, { signal }: { signal: AbortSignal }): Promise<RunOutcome> {
    // Loaded without the signal: a firing that has begun always leaves a run that resume can finish.
    const { budgetYuan, prices, allowUnpriced } = this.#options;
    const workflow = await loadWorkflow(request.file, { budgetYuan, prices, allowUnpriced });
    const result = await runWorkflow(workflow, { ...this.#options, outDir: request.runDir, signal });
    return {
      state: result.status,
      runDir: result.runDir,
      costYuan: result.cost.totalYuan,
      ...(result.error === undefined ? {} : { error: result.error }),
    };
  }
}
