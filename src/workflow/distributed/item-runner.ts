import { randomUUID } from "node:crypto";
import path from "node:path";
import type { Dispatcher } from "undici";
import { listAgentDefinitions } from "../../../agents/index.js";
import type { GatewayClient } from "../../gateway/gateway-client.js";
import type { Scheduler } from "../../scheduling/scheduler.js";
import { resolveInputs } from "../input-values.js";
import { parseWorkflow, type Workflow } from "../load/load-workflow.js";
import type { MusicPolling } from "../kinds/music-kind.js";
import { isPlainObject } from "../plain-object.js";
import { BATCH_KEY } from "../batch/batch-run-body.js";
import { ConfigError } from "../../errors.js";
import { ArtifactStore } from "../run/artifact-store.js";
import { CallIntents, callFacts } from "../run/call-intents.js";
import { CostJournal } from "../run/cost-journal.js";
import { createStepServices } from "../run/create-step-services.js";
import { budgetStop, summarizeError, WaitingError } from "../run/error-summary.js";
import { renderOutputs } from "../run/execute-run.js";
import { executeSteps } from "../run/execute-steps.js";
import type { Limiter } from "../run/limiter.js";
import { Replay } from "../run/replay.js";
import type { ApprovalRequest } from "../run/journal-records.js";
import type { RunState, Scope } from "../run/run-state.js";
import type { StepReport } from "../run/step-report.js";
import { ItemApprovals } from "./item-approvals.js";
import { createItemLedger } from "./item-ledger.js";
import { RunBudget, type ItemBudget } from "./run-budget.js";
import { RunGate } from "./run-gate.js";
import { RunPricing } from "./run-pricing.js";
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
  /** How music steps (and compose_music) poll, as runWorkflow's `music`. Default: the music client's. */
  readonly music?: MusicPolling;
}

/** What became of an item a worker took: run (to a result), skipped (it had one), halted (the run was
 * halted before it started), stopped (the run's budget refused one of its calls; resume runs it) or
 * waiting (for a person's decision; `svc-flow approve --item N` runs it again). */
export type ItemOutcome = "ran" | "skipped" | "halted" | "stopped" | "waiting";

// An item that cannot go on until a person answers: the questions it asked.
interface ItemWaiting {
  readonly state: "waiting";
  readonly requests: readonly ApprovalRequest[];
}

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
  readonly #gate: RunGate;
  readonly #pricing: RunPricing;
  readonly #approvals: ItemApprovals;
  readonly #reports = new Map<string, StepReport>();
  readonly #root: string;

  private constructor(spec: RunSpec, workflow: Workflow, store: RunStore, services: WorkerServices) {
    this.spec = spec;
    this.#workflow = workflow;
    this.#store = store;
    this.#services = services;
    this.#root = path.join(services.artifactsDir, spec.start.runId);
    this.#gate = new RunGate(store);
    this.#pricing = new RunPricing(store, spec.start.runId);
    this.#approvals = new ItemApprovals(store);
  }

  /** The runner of run `runId`, its workflow parsed from the stored text. */
  static async open(store: RunStore, runId: string, services: WorkerServices): Promise<ItemRunner> {
    const spec = await store.spec(runId);
    // Prices were checked against the budget when the run was enqueued, with the run's own pricing
    // (which the item's ledger keeps to); this worker's load does not judge them again.
    const workflow = parseWorkflow(spec.workflowText, {
      fileName: spec.start.workflowFile,
      baseDir: spec.start.baseDir,
      allowUnpriced: true,
    });
    if (workflow.hash !== spec.start.workflowHash) {
      throw new ConfigError(
        `Run ${runId} was enqueued from a different workflow than the one stored with it; its data in Redis is damaged.`,
        { code: "workflow_changed" },
      );
    }
    return new ItemRunner(spec, workflow, store, services);
  }

  /**
   * Runs item `index` unless it has a result or the run is halted, and records its result (the first
   * finisher wins). A failure under `onItemError: fail` halts the run; so does a budget refusal,
   * which leaves the item without a result for resume. Throws only when `signal` stopped it.
   */
  async run(index: number, signal: AbortSignal): Promise<ItemOutcome> {
    const runId = this.spec.start.runId;
    const execution = randomUUID();
    const budget = new RunBudget(this.#store, runId);
    if (!(await this.#gate.enter(runId, index, execution))) {
      await budget.reconcile(index);
      return "halted";
    }
    try {
      if (await this.#store.hasResult(runId, index)) {
        await budget.reconcile(index);
        return "skipped";
      }
      const account = await budget.open(index, execution);
      let result: StoredResult | ItemWaiting | undefined;
      try {
        result = await this.#execute(index, signal, account);
      } finally {
        await account?.close();
      }
      if (result === undefined) return "stopped";
      if (result.state === "waiting") {
        // After its steps' records (the same connection keeps them in order): what it waits on is journaled.
        await this.#approvals.wait(runId, index, result.requests);
        return "waiting";
      }
      await this.#store.finishItem(runId, result);
      if (result.state === "failed" && this.spec.onItemError === "fail" && result.error !== undefined) {
        await this.#gate.halt(runId, { reason: "failed", index, error: result.error, at: new Date().toISOString() });
      }
      return "ran";
    } finally {
      await this.#gate.leave(runId, index, execution);
    }
  }

  // The item's result, or the questions it waits on; undefined when the budget stopped it (the run is
  // halted, the item left for resume).
  async #execute(
    index: number,
    signal: AbortSignal,
    account: ItemBudget | undefined,
  ): Promise<StoredResult | ItemWaiting | undefined> {
    const runId = this.spec.start.runId;
    const item = await this.#store.item(runId, index);
    const replay = new Replay([this.spec.start, ...(await this.#store.itemRecords(runId, index))]);
    const journal = this.#store.itemJournal(runId, index);
    // Every billable call's intent goes in the item's journal before it is sent, and its bill names it, as on one
    // machine: an item taken over from a dead worker knows which calls may have been billed twice (cost.json says).
    const intents = new CallIntents(journal, (route, body) => callFacts(ledger, route, body), {
      open: replay.openCalls,
      doubles: replay.doubleBills,
    });
    const costs = new CostJournal(journal, intents);
    const services = this.#services;
    // The run's pricing, as enqueued or last resumed, never this worker's own flags.
    const pricing = await this.#pricing.forItem();
    const allowUnpriced = pricing.allowUnpriced ?? this.#workflow.definition.budget?.allowUnpriced;
    const ledger = createItemLedger({
      pricing,
      account,
      allowUnpriced,
      restored: replay.costs,
      costs,
      onEntry: (entry) => {
        const key = entry.tags.step;
        if (key !== undefined) this.#reports.get(key)?.add(entry);
      },
    });
    const waiting: RunState["waiting"] = [];
    const shared = {
      journal,
      waiting,
      client: services.client,
      scheduler: services.scheduler,
      dispatcher: services.dispatcher,
      runId,
      intents,
      apiKey: services.apiKey,
      baseURL: services.baseURL,
      ledger,
      artifacts: new ArtifactStore(this.#root),
      costs,
      replay,
      baseDir: this.#workflow.baseDir,
      runDir: this.#root,
      workspace: path.join(this.#root, "workspace"),
      agents: listAgentDefinitions(),
      ...(services.music?.pollIntervalMs === undefined ? {} : { musicPollIntervalMs: services.music.pollIntervalMs }),
      emit: () => undefined,
    };
    const state: RunState = {
      workflow: this.#workflow,
      runId,
      runDir: this.#root,
      journal,
      replay,
      ledger,
      limit: services.limit,
      concurrency: services.concurrency,
      signal,
      music: services.music ?? {},
      reports: this.#reports,
      waiting,
      tallies: new Map(),
      emit: () => undefined,
      services: (key, report, retry) => createStepServices(shared, key, report, retry),
    };
    let result: StoredResult;
    try {
      const scope: Scope = {
        inputs: this.#inputsOf(item.value, index, item.line),
        run: { id: runId, name: this.spec.start.name, dir: this.spec.runDir, startedAt: this.spec.start.startedAt },
        steps: {},
        variables: {},
      };
      const { durable } = await executeSteps(this.#workflow.graph, scope, state, `${BATCH_KEY}[${index}].`);
      await durable;
      result = { index, line: item.line, state: "done", output: renderOutputs(this.#workflow, scope) };
    } catch (error) {
      // A stop (shutdown, kill) is not the item's failure: the job goes back to the queue.
      if (signal.aborted) throw error;
      // Waiting for a decision is not a failure either: its paid steps are journaled, replayed once answered.
      if (error instanceof WaitingError && state.halt === undefined) return { state: "waiting", requests: waiting };
      const stop = budgetStop(state.halt?.reason === "budget" ? state.halt.error : error);
      if (stop !== undefined) {
        await this.#gate.halt(runId, {
          reason: "budget",
          index,
          error: summarizeError(stop),
          at: new Date().toISOString(),
        });
        return undefined;
      }
      result = { index, line: item.line, state: "failed", error: summarizeError(error) };
    }
    return result;
  }

  #inputsOf(value: unknown, index: number, line: number): Record<string, unknown> {
    const inputs = this.spec.start.inputs;
    if (this.spec.inputName !== undefined) return { ...inputs, [this.spec.inputName]: value };
    if (!isPlainObject(value)) {
      throw new ConfigError(
        `Row ${index + 1} (line ${line}) is not an object of input values. Give each row the workflow's input names as keys, or declare a type: items input.`,
      );
    }
    return resolveInputs(this.#workflow.definition.inputs, { ...inputs, ...value });
  }
}
