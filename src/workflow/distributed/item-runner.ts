import path from "node:path";
import type { Dispatcher } from "undici";
import { listAgentDefinitions } from "../../../agents/index.js";
import { CostLedger } from "../../cost/cost-ledger.js";
import type { GatewayClient } from "../../gateway/gateway-client.js";
import type { Scheduler } from "../../scheduling/scheduler.js";
import { resolveInputs } from "../input-values.js";
import { parseWorkflow, type Workflow } from "../load/load-workflow.js";
import { isPlainObject } from "../plain-object.js";
import { BATCH_KEY } from "../batch/batch-run-body.js";
import { ConfigError } from "../../errors.js";
import { ArtifactStore } from "../run/artifact-store.js";
import { createStepServices } from "../run/create-step-services.js";
import { summarizeError } from "../run/error-summary.js";
import { renderOutputs } from "../run/execute-run.js";
import { executeSteps } from "../run/execute-steps.js";
import type { Limiter } from "../run/limiter.js";
import { Replay } from "../run/replay.js";
import type { RunState, Scope } from "../run/run-state.js";
import type { StepReport } from "../run/step-report.js";
import type { RunSpec, RunStore, StoredResult } from "./run-store.js";

/** What a worker shares across the runs it serves: one gateway client, scheduler and call limit. */
export interface WorkerServices {
  readonly client: GatewayClient;
  readonly scheduler: Scheduler;
  readonly dispatcher: Dispatcher;
  readonly apiKey: string;
  readonly baseURL: string;
  readonly limit: Limiter;
  readonly concurrency: number;
  /** The folder the workers share: run R's artifacts go to DIR/R/artifacts. */
  readonly artifactsDir: string;
}

// The step keys of item N start `items[N].`, as in a single-machine batch, so journals read the same.
const ITEM_KEY = /^items\[(\d+)\]\./;

/**
 * Runs the items of one distributed run in a worker with the engine a single machine uses: each
 * item's steps are journaled to the run store under `items[N].`, a re-run item (its worker died)
 * replays its finished steps from there, and its calls carry idempotency keys made of the run id
 * and step key, so a call repeated by another worker is replayed by the gateway, not billed again.
 */
export class ItemRunner {
  readonly spec: RunSpec;
  readonly #workflow: Workflow;
  readonly #store: RunStore;
  readonly #services: WorkerServices;
  readonly #ledger: CostLedger;
  readonly #reports = new Map<string, StepReport>();
  readonly #root: string;

  private constructor(spec: RunSpec, workflow: Workflow, store: RunStore, services: WorkerServices) {
    this.spec = spec;
    this.#workflow = workflow;
    this.#store = store;
    this.#services = services;
    this.#root = path.join(services.artifactsDir, spec.start.runId);
    const runId = spec.start.runId;
    // Costs are journaled with the item whose step made them; the enqueuer totals them into cost.json.
    this.#ledger = new CostLedger({
      onEntry: (entry) => {
        const key = entry.tags.step;
        if (key !== undefined) this.#reports.get(key)?.add(entry);
        const index = key === undefined ? undefined : ITEM_KEY.exec(key)?.[1];
        if (index !== undefined) void store.itemJournal(runId, Number(index)).append({ type: "cost", entry }).catch(() => undefined);
      },
    });
  }

  /** The runner of run `runId`, its workflow parsed from the stored text. */
  static async open(store: RunStore, runId: string, services: WorkerServices): Promise<ItemRunner> {
    const spec = await store.spec(runId);
    const workflow = parseWorkflow(spec.workflowText, { fileName: spec.start.workflowFile, baseDir: spec.start.baseDir });
    if (workflow.hash !== spec.start.workflowHash) {
      throw new ConfigError(`Run ${runId} was enqueued from a different workflow than the one stored with it; its data in Redis is damaged.`, { code: "workflow_changed" });
    }
    return new ItemRunner(spec, workflow, store, services);
  }

  /** Runs item `index` unless it has a result; records the result (first finisher wins). Throws only when stopped. */
  async run(index: number, signal: AbortSignal): Promise<"ran" | "skipped"> {
    const runId = this.spec.start.runId;
    if (await this.#store.hasResult(runId, index)) return "skipped";
    const item = await this.#store.item(runId, index);
    const replay = new Replay([this.spec.start, ...(await this.#store.itemRecords(runId, index))]);
    const journal = this.#store.itemJournal(runId, index);
    const services = this.#services;
    const shared = {
      client: services.client,
      scheduler: services.scheduler,
      dispatcher: services.dispatcher,
      apiKey: services.apiKey,
      baseURL: services.baseURL,
      ledger: this.#ledger,
      artifacts: new ArtifactStore(this.#root),
      journal,
      replay,
      baseDir: this.#workflow.baseDir,
      runDir: this.#root,
      workspace: path.join(this.#root, "workspace"),
      agents: listAgentDefinitions(),
      emit: () => undefined,
    };
    const state: RunState = {
      workflow: this.#workflow,
      runId,
      runDir: this.#root,
      journal,
      replay,
      ledger: this.#ledger,
      limit: services.limit,
      concurrency: services.concurrency,
      signal,
      music: {},
      reports: this.#reports,
      emit: () => undefined,
      services: (key, report, retry) => createStepServices(shared, key, report, retry),
    };
    let result: StoredResult;
    try {
      const scope: Scope = { inputs: this.#inputsOf(item.value, index, item.line), run: { id: runId, name: this.spec.start.name, dir: this.spec.runDir, startedAt: this.spec.start.startedAt }, steps: {}, variables: {} };
      await executeSteps(this.#workflow.graph, scope, state, `${BATCH_KEY}[${index}].`);
      result = { index, line: item.line, state: "done", output: renderOutputs(this.#workflow, scope) };
    } catch (error) {
      // A stop (shutdown, kill) is not the item's failure: the job goes back to the queue.
      if (signal.aborted) throw error;
      result = { index, line: item.line, state: "failed", error: summarizeError(error) };
    }
    await this.#store.finishItem(runId, result);
    return "ran";
  }

  #inputsOf(value: unknown, index: number, line: number): Record<string, unknown> {
    const inputs = this.spec.start.inputs;
    if (this.spec.inputName !== undefined) return { ...inputs, [this.spec.inputName]: value };
    if (!isPlainObject(value)) {
      throw new ConfigError(`Row ${index + 1} (line ${line}) is not an object of input values. Give each row the workflow's input names as keys, or declare a type: items input.`);
    }
    return resolveInputs(this.#workflow.definition.inputs, { ...inputs, ...value });
  }
}
