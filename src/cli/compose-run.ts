// The composition root of a run: the one place that both starts a local gateway and runs a workflow.
import path from "node:path";
import { DEMO_KEY, startLocalGateway } from "../server/index.js";
import { configuredGateway, type ConnectGatewayOptions, type GatewayConnection } from "../workflow/connect-gateway.js";
import type { Workflow } from "../workflow/load/load-workflow.js";
import { resumeWorkflow as resumeWithGateway, type ResumeWorkflowOptions } from "../workflow/run/resume-workflow.js";
import type { RunResult, RunWorkflowOptions } from "../workflow/run/run-options.js";
import { runWorkflow as runWithGateway } from "../workflow/run/run-workflow.js";
import type { ExecuteOptions } from "../workflow/run/run-options.js";
import type { TraceOptions } from "../langchain/langchain-tracer.js";
import { rerunWorkflow as rerunWithGateway, type RerunWorkflowOptions } from "../workflow/run/rerun-workflow.js";

/** Where the embedded gateway keeps its state when no run names a folder (`svc-flow music`, `chat`, `agent`): under runs/. */
export const DEFAULT_STATE_DIR = path.join("runs", "local-gateway");

/**
 * The gateway a command talks to: the given or configured one (SVC_BASE_URL and SVC_API_KEY), or,
 * when neither is set, a local gateway started in-process with simulated models, announced in one
 * line, keeping its music jobs, stored responses and bills in `stateDir` (default runs/local-gateway).
 */
export async function connectGateway(options: ConnectGatewayOptions = {}): Promise<GatewayConnection> {
  const configured = configuredGateway(options);
  if (configured !== undefined) return configured;
  const gateway = await startLocalGateway({ port: 0, stateDir: path.resolve(options.stateDir ?? DEFAULT_STATE_DIR) });
  const notice = options.notice ?? ((line: string) => process.stderr.write(`${line}\n`));
  notice(`svc-flow: SVC_BASE_URL is not set; using a local gateway with simulated models at ${gateway.baseURL}`);
  return { baseURL: gateway.baseURL, apiKey: DEMO_KEY, local: true, close: () => gateway.close() };
}

/**
 * Runs a loaded workflow (see the engine's runWorkflow); with no gateway given or configured, a
 * local gateway is started for the run and keeps its state in the run directory, so
 * `resumeWorkflow` finds its music jobs and stored responses.
 */
export async function runWorkflow(
  workflow: Workflow,
  options: RunWorkflowOptions & TraceOptions = {},
): Promise<RunResult> {
  return runWithGateway(workflow, { connect: connectGateway, ...(await withTracer(options)) });
}

/** Finishes a run from its directory (see the engine's resumeWorkflow), starting a local gateway on the run's state when none is configured. */
export async function resumeWorkflow(
  runDir: string,
  options: ResumeWorkflowOptions & TraceOptions = {},
): Promise<RunResult> {
  return resumeWithGateway(runDir, { connect: connectGateway, ...(await withTracer(options)) });
}

/** The options with a LangChain tracer when callbacks are given or LangSmith's environment turns tracing on;
 * LangChain's callback code loads only then. */
async function withTracer<T extends ExecuteOptions>(options: T & TraceOptions): Promise<T> {
  const { callbacks, ...rest } = options;
  if (rest.tracer !== undefined || (callbacks === undefined && !tracingFromEnvironment(process.env))) return rest as T;
  const { langChainTracer } = await import("../langchain/langchain-tracer.js");
  const tracer = langChainTracer(callbacks);
  return (tracer === undefined ? rest : { ...rest, tracer }) as T;
}

// The variables with which LangChain adds LangSmith's tracer (LANGSMITH_TRACING=true and its older names).
function tracingFromEnvironment(env: NodeJS.ProcessEnv): boolean {
  return ["LANGSMITH_TRACING_V2", "LANGCHAIN_TRACING_V2", "LANGSMITH_TRACING", "LANGCHAIN_TRACING"].some(
    (name) => env[name] === "true",
  );
}

/** Runs a run's workflow again in a new run directory, reusing what still matches (see the engine's rerunWorkflow). */
export async function rerunWorkflow(
  runDir: string,
  options: RerunWorkflowOptions & TraceOptions = {},
): Promise<RunResult> {
  return rerunWithGateway(runDir, { connect: connectGateway, ...(await withTracer(options)) });
}
