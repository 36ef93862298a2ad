import { ToolMessage } from "@langchain/core/messages";
import type { createMiddleware as CreateMiddleware } from "langchain";
import { SvcFlowError, redactSecrets } from "../../src/errors.js";
import type { AgentEvent, ToolCallRecord } from "./agent-events.js";

// Failures the model cannot fix by trying something else: the run stops with them.
const FATAL_CODES = new Set([
  "aborted",
  "budget_exceeded",
  "insufficient_quota",
  "invalid_api_key",
  "invalid_api_key_format",
  "key_deactivated",
  "missing_api_key",
  "missing_base_url",
  "invalid_base_url",
  // A tool call waits for a person, or needs one and there is none: the run stops (waiting, or with the reason).
  "approval_pending",
  "approval_unavailable",
]);

/** Thrown by the middleware when the model still calls tools at its last allowed step. */
export class StepLimitReached extends SvcFlowError {
  constructor(message: string) {
    super("step_limit", message);
  }
}

/** What the step middleware counts and records over one run. */
export interface StepTracker {
  readonly steps: number;
  /** The tool calls run so far, in the order the model asked for them. */
  readonly toolCalls: readonly ToolCallRecord[];
}

/**
 * The middleware that makes an agent run observable and bounded: it numbers model turns, reports
 * each turn and tool call as an event, stops the run when the model still calls tools at
 * `maxSteps`, and turns a tool's error into a message the model can act on (failures the model
 * cannot fix, such as a spent budget or a bad key, end the run instead). `createMiddleware` is
 * LangChain's, passed in by the runner that loaded it.
 */
export function createStepMiddleware(
  createMiddleware: typeof CreateMiddleware,
  options: {
    readonly maxSteps: number;
    /** The agent's own tools; calls to anything else (the response-format tool) are the final answer. */
    readonly toolNames: ReadonlySet<string>;
    readonly emit: (event: AgentEvent) => void;
    readonly signal?: AbortSignal;
  },
) {
  let steps = 0;
  const toolCalls: ToolCallRecord[] = [];
  // When each recorded call started: calls of one step run side by side and finish in any order, and
  // are recorded in the order the model asked for them.
  const startedAt: number[] = [];
  let callsStarted = 0;
  const tracker: StepTracker = {
    get steps() {
      return steps;
    },
    toolCalls,
  };
  const middleware = createMiddleware({
    name: "SvcFlowSteps",
    wrapModelCall: async (request, handler) => {
      const response = await handler(request);
      steps++;
      const calls = (response.tool_calls ?? []).map((call) => ({
        id: call.id ?? "",
        name: call.name,
        arguments: call.args,
      }));
      const usage = response.usage_metadata;
      const served = (response.response_metadata as Record<string, unknown> | undefined)?.model;
      options.emit({
        type: "model",
        step: steps,
        text: response.text,
        toolCalls: calls,
        ...(typeof served === "string" ? { model: served } : {}),
        ...(usage === undefined ? {} : { inputTokens: usage.input_tokens, outputTokens: usage.output_tokens }),
      });
      const pending = calls.filter((call) => options.toolNames.has(call.name));
      if (pending.length > 0 && steps >= options.maxSteps) {
        const names = [...new Set(pending.map((call) => call.name))].join(", ");
        throw new StepLimitReached(
          `Stopped after ${steps} step${steps === 1 ? "" : "s"} without a final answer: step ${steps} still called ${names}, ` +
            `which was not run. Raise the step limit (--max-steps, now ${options.maxSteps}) or make the task more direct.`,
        );
      }
      return response;
    },
    wrapToolCall: async (request, handler) => {
      const { toolCall } = request;
      const id = toolCall.id ?? "";
      const step = steps;
      const order = callsStarted++;
      options.emit({ type: "tool-call", step, id, name: toolCall.name, arguments: toolCall.args });
      const started = performance.now();
      const finish = (result: string, failed: boolean) => {
        let at = toolCalls.length;
        while (at > 0 && startedAt[at - 1]! > order) at--;
        toolCalls.splice(at, 0, { name: toolCall.name, arguments: toolCall.args, result, failed });
        startedAt.splice(at, 0, order);
        options.emit({
          type: "tool-result",
          step,
          id,
          name: toolCall.name,
          result,
          failed,
          durationMs: Math.round(performance.now() - started),
        });
      };
      try {
        const result = await handler(request);
        if (ToolMessage.isInstance(result)) finish(result.text, result.status === "error");
        return result;
      } catch (error) {
        if (options.signal?.aborted === true || isFatalToolError(error)) throw error;
        const message = toolErrorMessage(error);
        finish(message, true);
        return new ToolMessage({ content: message, tool_call_id: id, name: toolCall.name, status: "error" });
      }
    },
  });
  return { middleware, tracker };
}

/** Whether a tool's error ends the run instead of going back to the model (a spent budget, a bad key, an abort). */
export function isFatalToolError(error: unknown): boolean {
  // LangChain wraps an error that passes through an inner middleware's hook (the durable one): look at its causes.
  for (let current = error, depth = 0; current instanceof Error && depth < 8; depth++) {
    if (current instanceof SvcFlowError) return FATAL_CODES.has(current.code);
    if (current.name === "AbortError") return true;
    current = current.cause;
  }
  return false;
}

/** The text a model gets in place of a tool's result when the tool failed: what went wrong and its code. */
export function toolErrorMessage(error: unknown): string {
  if (error instanceof SvcFlowError) return redactSecrets(`Error (${error.code}): ${error.message}`);
  const message = error instanceof Error ? error.message : String(error);
  return redactSecrets(`Error: ${message}`);
}
