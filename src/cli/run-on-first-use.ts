import type { ConnectGatewayOptions, GatewayConnection } from "../workflow/connect-gateway.js";
import type { Workflow } from "../workflow/load/load-workflow.js";
import type { ResumeWorkflowOptions } from "../workflow/run/resume-workflow.js";
import type { RunResult, RunWorkflowOptions } from "../workflow/run/run-options.js";
import type { TraceOptions } from "../langchain/langchain-tracer.js";
import type { RerunWorkflowOptions } from "../workflow/run/rerun-workflow.js";

// The package root's entry to running workflows: the composed run (engine, step kinds, tools, agents,
// journal, and the local gateway it may start) is loaded on first call, so `import "svc-flow"` does
// not pay for it.

/**
 * Runs a loaded workflow in a new run directory; with no SVC_BASE_URL/SVC_API_KEY (and no `gateway`)
 * it starts a local gateway whose state stays in the run directory. Resolves when the run ends:
 * `done`, `stopped` (budget or signal; resumable) or `failed` (resumable once the cause is fixed).
 */
export async function runWorkflow(
  workflow: Workflow,
  options: RunWorkflowOptions & TraceOptions = {},
): Promise<RunResult> {
  const composed = await import("./compose-run.js");
  return composed.runWorkflow(workflow, options);
}

/** Finishes a run from its directory; steps in its journal are not run (nor paid) again. */
export async function resumeWorkflow(
  runDir: string,
  options: ResumeWorkflowOptions & TraceOptions = {},
): Promise<RunResult> {
  const composed = await import("./compose-run.js");
  return composed.resumeWorkflow(runDir, options);
}

/**
 * Runs a run's workflow (or an edited one) again in a new run directory, taking each step whose key
 * matches a finished step of the run at ¥0; starts a local gateway as runWorkflow does.
 */
export async function rerunWorkflow(
  runDir: string,
  options: RerunWorkflowOptions & TraceOptions = {},
): Promise<RunResult> {
  const composed = await import("./compose-run.js");
  return composed.rerunWorkflow(runDir, options);
}

/** The gateway a run talks to: the configured one, or a local gateway started in-process when none is. */
export async function connectGateway(options: ConnectGatewayOptions = {}): Promise<GatewayConnection> {
  const composed = await import("./compose-run.js");
  return composed.connectGateway(options);
}
