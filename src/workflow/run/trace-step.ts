import type { SpanStart, TraceSpan } from "../../chat/trace-span.js";
import type { RunState } from "./run-state.js";

/**
 * Runs `work` in a span opened under the state's span (a step, a map item), ended with its output or
 * failed with its error. `work` gets a view of the state whose steps open their spans under the new one.
 * Without a tracer it only runs `work`.
 */
export function traced<T>(
  state: RunState,
  start: SpanStart,
  work: (state: RunState, span: TraceSpan | undefined) => Promise<T>,
): Promise<T> {
  // Untraced, `work`'s own promise: no layer of its own around every step and item.
  if (state.trace === undefined) return work(state, undefined);
  return inSpan(state.trace, state, start, work);
}

async function inSpan<T>(
  trace: TraceSpan,
  state: RunState,
  start: SpanStart,
  work: (state: RunState, span: TraceSpan | undefined) => Promise<T>,
): Promise<T> {
  const span = await trace.child(start);
  let value: T;
  try {
    value = await work(withTrace(state, span), span);
  } catch (error) {
    await span.fail(error);
    throw error;
  }
  await span.end({ output: value });
  return value;
}

/** A view of `state` whose new steps open their spans under `span`; its halt stays the state's. */
export function withTrace(state: RunState, span: TraceSpan): RunState {
  return Object.create(state, {
    trace: { value: span, enumerable: true },
    halt: {
      get: () => state.halt,
      set: (value: RunState["halt"]) => {
        state.halt = value;
      },
      enumerable: true,
    },
  }) as RunState;
}
