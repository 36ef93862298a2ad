import type { PossibleDoubleBills } from "./call-intents.js";
import type { Dispatcher } from "undici";
import type { Tracer } from "../../chat/trace-span.js";
import type { PriceOverrides } from "../../catalog/prices.js";
import type { AgentDefinition } from "../../../agents/index.js";
import type { MusicPolling } from "../kinds/music-kind.js";
import type { ConnectGateway } from "../connect-gateway.js";
import type { WorkflowEvent } from "../workflow-event.js";
import type { ApprovalRequest, ErrorSummary, JournaledToolCall } from "./journal-records.js";
import type { RunReportWriter } from "./run-summary.js";
import type { CostSummary } from "../../cost/summarize-entries.js";
import type { RunStatus } from "../workflow-event.js";
import type { RunState, Scope } from "./run-state.js";
import type { ItemTally } from "./item-tally.js";
import type { BatchBodyOptions, BatchRunOptions } from "../batch/batch-options.js";

/** Options shared by runWorkflow and resumeWorkflow. */
export interface ExecuteOptions {
  /** The money cap in yuan; overrides `budget.maxYuan` (on resume: the raised cap). Default: the file's, else none. */
  readonly budgetYuan?: number;
  /** Prices laid over the published ones (a price file's content). */
  readonly prices?: PriceOverrides;
  /** Under a budget, run calls to models without a price (counted as unpriced). Default false. */
  readonly allowUnpriced?: boolean;
  /** The gateway: URL and key (default: the environment, else a local gateway), and an undici dispatcher to send through. */
  readonly gateway?: { readonly baseURL?: string; readonly apiKey?: string; readonly dispatcher?: Dispatcher };
  /**
   * What the media links a step downloads itself (audio, sent inline) go through. Default: the network
   * as it is. A server that runs workflows for a model's client (`mcp serve`) passes a public-only one,
   * so that a link cannot reach the machine's own or its private network.
   */
  readonly mediaDispatcher?: Dispatcher;
  /** Steps that call something, in flight at once. Default: the file's `concurrency`, else 8. */
  readonly concurrency?: number;
  /** Folder the file tools (read_file, write_file, list_files) work in. Default: RUN_DIR/workspace. */
  readonly workspace?: string;
  /** Agents that `agent:` may name. Default: the ready agents in agents/. */
  readonly agents?: readonly AgentDefinition[];
  /** How music steps poll. */
  readonly music?: MusicPolling;
  /** Called at the end of every attempt with everything the report needs. Default: writes RUN_DIR/report.html. */
  readonly report?: RunReportWriter;
  /** Receives the run as one trace tree: the run, each step (map items by index), each chat call. Default none
   * (the composed runWorkflow makes one from `callbacks` or LangSmith's environment). */
  readonly tracer?: Tracer;
  /** Progress, for a live display or a log. */
  readonly onEvent?: (event: WorkflowEvent) => void;
  /** Aborting stops the run resumably: calls in flight are cancelled, finished work stays journaled. */
  readonly signal?: AbortSignal;
  /** Opens the gateway when `gateway` names none: the composed runWorkflow (from "svc-flow") starts a local one
   * keeping its state in the run directory. Default: SVC_BASE_URL and SVC_API_KEY, or a ConfigError. */
  readonly connect?: ConnectGateway;
  /** Environment for SVC_BASE_URL / SVC_API_KEY. Default `process.env`. */
  readonly env?: NodeJS.ProcessEnv;
  /** Receives the one line saying a local gateway was started. Default: stderr. */
  readonly notice?: (line: string) => void;
  /** Runs the steps and returns the outputs, in place of running every step once (a batch maps them over an items file). */
  readonly body?: RunBody;
  /** Batch runs: what a failed item does. Default `collect` (recorded in outputs.jsonl; the batch goes on). */
  readonly onItemError?: NonNullable<BatchBodyOptions["onItemError"]>;
}

/** What a run does between connecting and writing its files: by default, every step once, then `outputs:`. */
export type RunBody = (state: RunState, scope: Scope) => Promise<Record<string, unknown>>;

/** Options of runWorkflow. */
export interface RunWorkflowOptions extends ExecuteOptions, BatchRunOptions {
  /** Input values; text (as from `--input k=v`) is converted to each input's declared type. */
  readonly inputs?: Readonly<Record<string, unknown>>;
  /** The run directory. Default `runs/<time>-<name>` under the current directory. */
  readonly outDir?: string;
  /** Run directories whose finished steps are taken (at no cost) wherever a step's key matches (docs/rerun.md). Default none. */
  readonly reuse?: readonly string[];
  /** A step id that runs again, with everything that reads it, whatever its key (`rerun --from`). Needs `reuse`. */
  readonly rerunFrom?: string;
}

/** How a run attempt ended. */
export interface RunResult {
  readonly runDir: string;
  readonly runId: string;
  readonly status: RunStatus;
  readonly reason?: "budget" | "interrupted";
  /** The rendered `outputs:` (also in outputs.json); only when the run is done. */
  readonly outputs?: Readonly<Record<string, unknown>>;
  /** The ledger's totals. A batch's `byTag.step` holds its first page of rows (as the report shows them), not one
   * key a row: cost.json has every row's. */
  readonly cost: CostSummary;
  /** Calls that may have been billed twice by a gateway that ignores Idempotency-Key (see cost.json); only when any. */
  readonly possibleDoubleBills?: PossibleDoubleBills;
  readonly error?: ErrorSummary;
  /** Each map's (or the batch's) items: how many succeeded and failed; only maps not nested in another map. */
  readonly items?: readonly ItemTally[];
  /** A waiting run's open questions: answer each with `svc-flow approve RUN_DIR STEP_ID`. */
  readonly waiting?: readonly WaitingApproval[];
}

/** What a run reports of a question it waits on (the journaled request without its bookkeeping). */
export function waitingApproval({
  key,
  id,
  prompt,
  show,
  input,
  timeoutAt,
  toolCall,
}: ApprovalRequest): WaitingApproval {
  return { key, id, prompt, show, input, timeoutAt, toolCall };
}

/** An approval step a run waits on. */
export interface WaitingApproval {
  /** The step instance, e.g. `sign-off` or `posters[2].check`. */
  readonly key: string;
  readonly id: string;
  readonly prompt: string;
  readonly show?: unknown;
  /** JSON Schema of the reply. */
  readonly input?: Record<string, unknown>;
  readonly timeoutAt?: string;
  /** For an agent's tool call that needs approval: the agent step instance, model turn and call. */
  readonly toolCall?: JournaledToolCall;
}
