import type { ConnectGatewayOptions, GatewayConnection } from "./connect-gateway.js";
import type { Workflow } from "./load/load-workflow.js";
import type { ResumeWorkflowOptions } from "./run/resume-workflow.js";
import type { RunResult, RunWorkflowOptions } from "./run/run-options.js";

// The package root's entry to running workflows: the engine (step kinds, tools, agents, journal) and
// the local gateway are loaded on first call, so `import "svc-flow"` does not pay for them.
// svc-flow/workflow exports the same functions directly.

/**
 * Runs a loaded workflow in a new run directory. Resolves when the run ends: `done`, `stopped`
 * (budget or signal; resumable) or `failed` (resumable once the cause is fixed).
 */
export async function runWorkflow(workflow: Workflow, options: RunWorkflowOptions = {}): Promise<RunResult> {
  const engine = await import("./run/run-workflow.js");
  return engine.runWorkflow(workflow, options);
}

/** Finishes a run from its directory; steps in its journal are not run (nor paid) again. */
export async function resumeWorkflow(runDir: string, options: ResumeWorkflowOptions = {}): Promise<RunResult> {
  const engine = await import("./run/resume-workflow.js");
  return engine.resumeWorkflow(runDir, options);
}

/** The gateway a run talks to: the configured one, or a local gateway started in-process when none is. */
export async function connectGateway(options: ConnectGatewayOptions = {}): Promise<GatewayConnection> {
  const connector = await import("./connect-gateway.js");
  return connector.connectGateway(options);
}
