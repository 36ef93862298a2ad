/** A tool call the agent made, as outcomes and transcripts list it (the workflow's shape). */
export interface ToolCallRecord {
  readonly name: string;
  readonly arguments: Record<string, unknown>;
  /** The tool's answer, or the error message the model was given instead. */
  readonly result: string;
  readonly failed: boolean;
}

/** What a run reports as it goes, in order: for live display and the transcript. */
export type AgentEvent =
  | {
      readonly type: "start";
      readonly agent: string;
      readonly model: string;
      readonly task: string;
      readonly maxSteps: number;
      readonly workspace: string;
    }
  | {
      readonly type: "model";
      /** 1-based model turn. */
      readonly step: number;
      /** The visible text of the turn ("" when it only called tools). */
      readonly text: string;
      readonly toolCalls: readonly {
        readonly id: string;
        readonly name: string;
        readonly arguments: Record<string, unknown>;
      }[];
      /** The model that served (after any fallback), when the reply says. */
      readonly model?: string;
      readonly inputTokens?: number;
      readonly outputTokens?: number;
    }
  | {
      readonly type: "tool-call";
      readonly step: number;
      readonly id: string;
      readonly name: string;
      readonly arguments: Record<string, unknown>;
    }
  | {
      readonly type: "tool-result";
      readonly step: number;
      readonly id: string;
      readonly name: string;
      readonly result: string;
      readonly failed: boolean;
      readonly durationMs: number;
    }
  /** A person's answer to a call of a tool that needs approval, before it runs (or instead). */
  | {
      readonly type: "approval";
      readonly step: number;
      readonly id: string;
      readonly name: string;
      readonly arguments: Record<string, unknown>;
      readonly approved: boolean;
      readonly note?: string;
      readonly by?: string;
    }
  | { readonly type: "answer"; readonly step: number; readonly text: string; readonly structuredResponse?: unknown }
  | { readonly type: "stopped"; readonly reason: "step_limit"; readonly steps: number; readonly message: string }
  /** A model setting changed or dropped, a fallback used, usage missing: worth knowing, not a failure. */
  | { readonly type: "warning"; readonly code: string; readonly message: string }
  | { readonly type: "failed"; readonly code: string; readonly message: string };

/** How a run ended when it did not throw: an answer, or a clear stop at the step limit. */
export type AgentOutcome =
  | {
      readonly status: "answered";
      readonly agent: string;
      readonly model: string;
      /** The final answer as text; with a response format, the structured response as JSON. */
      readonly answer: string;
      /** The final answer in the agent's response format, checked against it; absent without one. */
      readonly structuredResponse?: unknown;
      readonly steps: number;
      readonly toolCalls: readonly ToolCallRecord[];
    }
  | {
      readonly status: "step_limit";
      readonly agent: string;
      readonly model: string;
      /** What happened and how to go on, e.g. "Stopped after 4 steps without a final answer: ...". */
      readonly message: string;
      readonly steps: number;
      readonly toolCalls: readonly ToolCallRecord[];
    };
