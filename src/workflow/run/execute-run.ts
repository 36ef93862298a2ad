import { mkdir } from "node:fs/promises";
import path from "node:path";
import { Agent } from "undici";
import { listAgentDefinitions } from "../../../agents/index.js";
import { roundYuan } from "../../catalog/prices.js";
import { isUnpricedRefusal, RAISE_BUDGET_HINT } from "../../cost/budget-errors.js";
import { CostLedger } from "../../cost/cost-ledger.js";
import type { CostEntry } from "../../cost/cost-entry.js";
import { formatYuan } from "../../cost/format-summary-table.js";
import { GatewayClient } from "../../gateway/gateway-client.js";
import { Scheduler } from "../../scheduling/scheduler.js";
import { connectConfiguredGateway } from "../connect-gateway.js";
import { startWorkflowMcp } from "../mcp/start-workflow-mcp.js";
import { renderValue } from "../expression/index.js";
import { writeReportFile } from "../report/write-report-file.js";
import type { Workflow } from "../load/load-workflow.js";
import { exposedIds } from "../load/walk-steps.js";
import type { RunStatus, WorkflowEvent } from "../workflow-event.js";
import { ArtifactStore } from "./artifact-store.js";
import { CallIntents, callFacts } from "./call-intents.js";
import { CostJournal } from "./cost-journal.js";
import { createStepServices } from "./create-step-services.js";
import { summarizeError, WaitingError } from "./error-summary.js";
import { executeSteps } from "./execute-steps.js";
import type { ErrorSummary, JournalRecord } from "./journal-records.js";
import { createLimiter } from "./limiter.js";
import { ReportRecords } from "./report-records.js";
import type { RunJournal } from "./run-journal.js";
import { waitingApproval, type ExecuteOptions, type RunResult } from "./run-options.js";
import type { RunState, Scope } from "./run-state.js";
import type { Replay } from "./replay.js";
import type { FinishedStep } from "./finished-steps.js";
import { ReleasedSteps } from "./released-steps.js";
import { isUnpricedCall, RestoredCosts } from "./restored-costs.js";
import { costFileContent, JsonFields, writeJsonFile } from "./write-run-files.js";
import { shellWord } from "../shell-word.js";

/** Steps that call something, in flight at once, unless the file or caller says otherwise. */
export const DEFAULT_CONCURRENCY = 8;

/** A run to carry out: new, or resumed from its journal. */
export interface RunPlan {
  readonly workflow: Workflow;
  readonly runDir: string;
  readonly journal: RunJournal;
  readonly replay: Replay;
  /** The journal's records so far that the report may read (`reportMayRead`): it is made from them and what this attempt appends. */
  readonly records: readonly JournalRecord[];
  readonly resumed: boolean;
  /** The bills of earlier attempts, taken in as the journal was read (resume). Default: none (a new run). */
  readonly restored?: RestoredCosts;
  /** The step-key prefix of a batch's rows (`items`), for a batch run. */
  readonly batchKey?: string;
  /** Finished steps of earlier runs to take by step key (`--reuse`), and the step `rerun --from` runs again. */
  readonly reuse?: { readonly finished: ReadonlyMap<string, FinishedStep>; readonly rerunFrom?: string };
}

/**
 * Runs (or finishes) the steps of a run directory: connects to the gateway, restores the ledger
 * from the journal, runs what the journal does not have, then writes outputs.json (when done),
 * cost.json and the journal's last line, and calls the report hook.
 */
export async function executeRun(plan: RunPlan, options: ExecuteOptions): Promise<RunResult> {
  const { workflow, runDir, replay } = plan;
  // Every record goes through it, so the report needs no second read of journal.jsonl.
  const kept = new ReportRecords(
    plan.journal,
    plan.records,
    plan.batchKey === undefined ? {} : { batchKey: plan.batchKey },
  );
  const journal = plan.journal;
  const { runId, inputs, startedAt, name } = replay.start;
  const emit = (event: WorkflowEvent) => options.onEvent?.(event);
  const budgetYuan = options.budgetYuan ?? replay.budgetYuan ?? workflow.definition.budget?.maxYuan;
  const allowUnpriced = options.allowUnpriced ?? workflow.definition.budget?.allowUnpriced;
  const concurrency = options.concurrency ?? workflow.definition.concurrency ?? DEFAULT_CONCURRENCY;
  const workspace = options.workspace ?? path.join(runDir, "workspace");
  // A run that cannot start (no gateway, no workspace) leaves its journal closed and resumable.
  const connection = await mkdir(workspace, { recursive: true })
    .then(() =>
      (options.connect ?? connectConfiguredGateway)({
        ...options.gateway,
        stateDir: runDir,
        ...(options.env ? { env: options.env } : {}),
        ...(options.notice ? { notice: options.notice } : {}),
      }),
    )
    .catch(async (error: unknown) => {
      await journal.close();
      throw error;
    });
  // MCP servers start once per run, before the first step, and stop with it.
  const mcp = await startWorkflowMcp(workflow, {
    ...(options.env === undefined ? {} : { env: options.env }),
    ...(options.signal === undefined ? {} : { signal: options.signal }),
  }).catch(async (error: unknown) => {
    await connection.close();
    await journal.close();
    throw error;
  });
  const agent =
    options.gateway?.dispatcher === undefined ? new Agent({ connections: Math.max(16, concurrency * 2) }) : undefined;
  // Every billable call's intent is journaled before it is sent (the ledger, declared below, prices its hold).
  const intents = new CallIntents(journal, (route, body) => callFacts(ledger, route, body), {
    open: replay.openCalls,
    doubles: replay.doubleBills,
  });
  // Each step keys its calls and journals their intents on its own view of it (createStepServices).
  const dispatcher = options.gateway?.dispatcher ?? agent!;
  const client = new GatewayClient({ apiKey: connection.apiKey, baseURL: connection.baseURL, dispatcher });
  const reports: RunState["reports"] = new Map();
  let pendingCost: Promise<void> = Promise.resolve();
  const keep = (entry: CostEntry) => kept.showsCostsOf(entry.tags.step);
  const restored = plan.restored ?? new RestoredCosts(runDir, keep);
  // Counted as entries arrive: summarizing the ledger on every entry is quadratic in a long batch.
  let unpricedCalls = restored.unpricedCalls;
  const costs = new CostJournal(kept, intents);
  // cost.json's calls wait on disk: the ledger keeps only the entries the report reads.
  const calls = restored.calls;
  // So do the totals of the steps the report does not show (a batch's later rows), as each ends.
  const released = new ReleasedSteps(runDir, plan.batchKey);
  let releasedAny = false;
  // An entry for a step that has ended (none is expected) may be counted twice over, once released.
  let lateEntries = false;
  const onEntry = (entry: CostEntry) => {
    pendingCost = costs.append(entry).catch(() => undefined);
    calls.append(entry);
    if (isUnpricedCall(entry)) unpricedCalls++;
    const key = entry.tags.step;
    const report = key === undefined ? undefined : reports.get(key);
    if (key !== undefined && report === undefined) lateEntries = true;
    // Chat calls say when they retry, and how long they wait, themselves (onRetry in the step's services);
    // a failed music call is tried again by its step unless the run was stopped.
    if (
      report?.add(entry) === true &&
      key !== undefined &&
      entry.kind === "music" &&
      options.signal?.aborted !== true
    ) {
      emit({
        type: "step-retry",
        key,
        id: key.slice(key.lastIndexOf(".") + 1),
        attempt: report.attempts,
        errorCode: entry.errorCode ?? "failed",
      });
    }
    emit({
      type: "cost",
      spentYuan: ledger.spentYuan,
      heldYuan: ledger.heldYuan,
      ...(budgetYuan === undefined ? {} : { maxYuan: budgetYuan }),
      unpriced: unpricedCalls,
    });
  };
  const ledger: CostLedger = new CostLedger({
    ...(budgetYuan === undefined ? {} : { maxYuan: budgetYuan }),
    ...(options.prices === undefined ? {} : { prices: options.prices }),
    ...(allowUnpriced === undefined ? {} : { allowUnpriced }),
    restored: restored.ledger,
    keep,
    onEntry,
  });
  const stepEnded = (key: string) => {
    const totals = ledger.endStep(key, { release: !kept.showsCostsOf(key) });
    if (totals === undefined) return;
    released.add(key, totals);
    releasedAny = true;
  };
  // Steps finished in earlier attempts never run again. A resumed batch ends its finished rows' steps here, each
  // writing its totals to the released-steps file: the loop keeps pace with the disk rather than queue them all.
  for (const key of replay.finishedSteps()) {
    stepEnded(key);
    await released.drained();
  }
  const waitingOn: RunState["waiting"] = [];
  const artifacts = new ArtifactStore(runDir);
  const agents = options.agents ?? listAgentDefinitions();
  const shared = {
    journal,
    waiting: waitingOn,
    client,
    scheduler: new Scheduler(),
    dispatcher,
    runId,
    intents,
    apiKey: connection.apiKey,
    baseURL: connection.baseURL,
    ledger,
    artifacts,
    costs,
    replay,
    baseDir: workflow.baseDir,
    runDir,
    workspace,
    agents,
    ...(mcp === undefined ? {} : { mcp }),
    ...(options.music?.pollIntervalMs === undefined ? {} : { musicPollIntervalMs: options.music.pollIntervalMs }),
    ...(options.mediaDispatcher === undefined ? {} : { mediaDispatcher: options.mediaDispatcher }),
    emit,
  };
  // Opened before the first step, so every step's span has its parent.
  const trace = await options.tracer?.start({
    name: workflow.name,
    kind: "run",
    input: inputs,
    metadata: { runId, runDir, resumed: plan.resumed },
  });
  const state: RunState = {
    workflow,
    runId,
    runDir,
    journal: kept,
    replay,
    ledger,
    limit: createLimiter(concurrency),
    concurrency,
    signal: options.signal ?? new AbortController().signal,
    music: options.music ?? {},
    reports,
    waiting: waitingOn,
    tallies: new Map(),
    keys: {
      context: { workflow: workflow.definition, agents, baseDir: workflow.baseDir, runDir, mediaCache: new Map() },
      finished: plan.reuse?.finished ?? new Map(),
      ...(plan.reuse?.rerunFrom === undefined ? {} : { rerunFrom: plan.reuse.rerunFrom }),
      artifacts,
    },
    emit,
    services: (key, report, retry, span) => createStepServices(shared, key, report, retry, span),
    stepEnded,
    ...(trace === undefined ? {} : { trace }),
  };
  const scope: Scope = { inputs, run: { id: runId, name, dir: runDir, startedAt }, steps: {}, variables: {} };
  emit({ type: "run-started", runId, runDir, resumed: plan.resumed, steps: workflow.graph.length });

  let status: RunStatus = "done";
  let reason: RunResult["reason"];
  let error: ErrorSummary | undefined;
  let outputs: Record<string, unknown> | undefined;
  let failure: unknown;
  try {
    if (options.body !== undefined) {
      outputs = await options.body(state, scope);
    } else {
      const { durable } = await executeSteps(workflow.graph, scope, state, "");
      await durable;
      outputs = renderOutputs(workflow, scope);
    }
  } catch (caught) {
    if (caught instanceof WaitingError && state.halt === undefined) {
      status = "waiting";
    } else {
      const halt = state.halt ?? { reason: "failed" as const, error: caught };
      failure = halt.error;
      status = halt.reason === "failed" ? "failed" : "stopped";
      reason = halt.reason === "failed" ? undefined : halt.reason;
      error = explain(summarizeError(halt.error), halt.reason, runDir, ledger);
    }
  } finally {
    await pendingCost;
    await client.close();
    await agent?.close();
    await connection.close();
    await mcp?.close();
  }
  const finishedAt = new Date().toISOString();
  if (outputs !== undefined) await writeJsonFile(path.join(runDir, "outputs.json"), outputs);
  const doubleBills = intents.summary();
  // One summary for the report and the result; cost.json's byTag.step adds the steps released to disk.
  const cost = ledger.summary();
  const byStep = releasedAny ? new JsonFields(released.byStep(cost.byTag.step ?? {}, lateEntries)) : undefined;
  await writeJsonFile(path.join(runDir, "cost.json"), costFileContent(cost, doubleBills, calls.calls(), byStep));
  await calls.remove();
  await released.remove();
  const items = [...state.tallies.values()];
  const tallied = items.length === 0 ? {} : { items };
  await kept.append({
    type: "run-finished",
    status,
    ...(reason === undefined ? {} : { reason }),
    at: finishedAt,
    ...(error === undefined ? {} : { error }),
    ...tallied,
  });
  await journal.close();
  emit({ type: "run-finished", status, runDir, ...(error === undefined ? {} : { error }) });
  if (status === "failed" || status === "stopped") await trace?.fail(failure);
  else await trace?.end({ status, ...(outputs === undefined ? {} : { outputs }) });
  await (options.report ?? writeReportFile)({
    runDir,
    runId,
    workflow,
    status,
    ...(reason === undefined ? {} : { reason }),
    ...(error === undefined ? {} : { error }),
    inputs,
    ...(outputs === undefined ? {} : { outputs }),
    cost,
    entries: ledger.entries(),
    ...(plan.batchKey === undefined ? {} : { rowYuan: (index: number) => released.rowYuan(index) }),
    journal: kept.records,
    startedAt,
    finishedAt,
  });
  const waiting =
    status === "waiting"
      ? {
          waiting: state.waiting.map(waitingApproval),
        }
      : {};
  return {
    runDir,
    runId,
    status,
    ...(reason === undefined ? {} : { reason }),
    ...(outputs === undefined ? {} : { outputs }),
    cost,
    ...(doubleBills.calls.length === 0 ? {} : { possibleDoubleBills: doubleBills }),
    ...(error === undefined ? {} : { error }),
    ...waiting,
    ...tallied,
  };
}

/** The run's `outputs:` rendered in `scope`; without `outputs:`, every top-level step's output (a parallel's children included) by id. */
export function renderOutputs(workflow: Workflow, scope: Scope): Record<string, unknown> {
  const declared = workflow.definition.outputs;
  const evaluationScope = { inputs: scope.inputs, run: scope.run, steps: scope.steps };
  if (declared !== undefined) return renderValue(declared, evaluationScope, ["outputs"]) as Record<string, unknown>;
  const ids = workflow.definition.steps.flatMap(exposedIds);
  return Object.fromEntries(ids.map((id) => [id, scope.steps[id]?.output]));
}

function explain(
  error: ErrorSummary,
  reason: "budget" | "interrupted" | "failed",
  runDir: string,
  ledger: CostLedger,
): ErrorSummary {
  const resume = `svc-flow resume ${shellWord(runDir)}`;
  if (reason === "budget") {
    const spent = formatYuan(roundYuan(ledger.spentYuan));
    // A cap cannot bound a call it cannot price: the fix is a price, not a higher cap.
    const fix = isUnpricedRefusal(error.message)
      ? `resume with its price (${resume} --prices FILE) or with --allow-unpriced`
      : `resume with a raised budget: ${resume} --budget YUAN`;
    return {
      ...error,
      // The refusal's own "raise the cap and resume" gives way to the exact command.
      message: `Stopped by the budget (${spent} spent of ${formatYuan(ledger.maxYuan ?? 0)}): ${error.message.replace(RAISE_BUDGET_HINT, "")} Finished steps are kept; ${fix}`,
    };
  }
  if (reason === "interrupted")
    return { ...error, message: `Interrupted: ${error.message} Finished steps are kept; continue with: ${resume}` };
  // Resume replays a person's rejection from the journal and fails again; a rerun asks anew.
  if (error.code === "approval_rejected")
    return {
      ...error,
      message: `${error.message} Finished steps are kept; a person's rejection is final in this run (resume would replay it), so to ask again run it anew: svc-flow rerun ${shellWord(runDir)}`,
    };
  return {
    ...error,
    message: `${error.message} Finished steps are kept; after fixing the cause, continue with: ${resume}`,
  };
}
