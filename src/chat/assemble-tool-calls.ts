import { randomUUID } from "node:crypto";
import { StreamedArguments } from "../gateway/streamed-arguments.js";
import type { ToolCall as WireToolCall, ToolCallDelta } from "../gateway/wire.js";

/** A tool call whose arguments are a JSON object. */
export interface ReplyToolCall {
  readonly id: string;
  readonly name: string;
  readonly arguments: Record<string, unknown>;
}

/** A tool call that cannot be run: no name, or arguments that are not a JSON object (usually cut
 * off by the output budget). */
export interface InvalidReplyToolCall {
  readonly id: string;
  readonly name?: string;
  /** The arguments as they came. */
  readonly arguments: string;
  readonly error: string;
}

/** Unknown wire fields of tool calls, by tool call id (for example a gamma model's
 * `thought_signature`); send them back with the call on the next turn. */
export type ToolCallExtras = Record<string, Record<string, unknown>>;

/** A fragment of a streamed tool call: `id` and `name` come with a call's first fragment;
 * `index` numbers the reply's calls from 0, whatever the wire's indices were. */
export interface ToolCallFragment {
  readonly index: number;
  readonly id?: string;
  readonly name?: string;
  readonly arguments: string;
}

/** Tool calls once a reply is complete: valid ones, invalid ones, and each call's unknown fields. */
export interface AssembledToolCalls {
  readonly toolCalls: ReplyToolCall[];
  readonly invalidToolCalls: InvalidReplyToolCall[];
  readonly extras: ToolCallExtras;
}

interface Slot {
  readonly index: number;
  id: string;
  name: string;
  readonly args: StreamedArguments;
  extras: Record<string, unknown>;
}

const KNOWN_FIELDS = new Set(["index", "id", "type", "function"]);

/** Builds tool calls from streamed fragments: by `index`, by position when `index` is absent, and
 * as a new call when a known index comes back with a new id and a name. Arguments may split
 * anywhere; they are validated once, at the end. */
export class ToolCallAssembler {
  readonly #slots: Slot[] = [];
  readonly #byWireIndex = new Map<number, Slot>();
  readonly #byId = new Map<string, Slot>();

  /** Takes the `tool_calls` of one delta; returns them as fragments with stable indices. */
  add(deltas: readonly ToolCallDelta[]): ToolCallFragment[] {
    return deltas.map((delta, position) => {
      const wireIndex = delta.index ?? position;
      const name = delta.function?.name;
      let slot = delta.id ? this.#byId.get(delta.id) : undefined;
      if (slot === undefined && !(delta.id && name)) {
        // A new id without a name continues the call at its index: some servers change the id after
        // the first fragment (poolsideai/pool#9) or send it only after the name.
        slot = this.#byWireIndex.get(wireIndex);
        if (slot !== undefined && delta.id) this.#byId.set(delta.id, slot);
      }
      const isNew = slot === undefined;
      // A new id with a name is a new call, even when its index was used before (a reused index).
      slot ??= this.#open(wireIndex, delta.id || `call_${randomUUID().replace(/-/g, "").slice(0, 24)}`);
      const args = slot.args.add(delta.function?.arguments ?? "");
      const nameIsNew = Boolean(name) && !slot.name;
      if (nameIsNew) slot.name = name!;
      for (const [key, value] of Object.entries(delta)) {
        if (!KNOWN_FIELDS.has(key) && value !== undefined && value !== null) slot.extras[key] = value;
      }
      return {
        index: slot.index,
        ...(isNew ? { id: slot.id } : {}),
        ...(nameIsNew ? { name: slot.name } : {}),
        arguments: args,
      };
    });
  }

  /** Takes the complete `tool_calls` of a non-streamed reply. */
  addComplete(calls: readonly WireToolCall[]): void {
    this.add(calls.map((call, index) => ({ ...call, index })));
  }

  /** Validates every call's arguments (a JSON object; empty or `null` means `{}`) and returns the calls. */
  finish(): AssembledToolCalls {
    const toolCalls: ReplyToolCall[] = [];
    const invalidToolCalls: InvalidReplyToolCall[] = [];
    const extras: ToolCallExtras = {};
    for (const slot of this.#slots) {
      if (Object.keys(slot.extras).length > 0) extras[slot.id] = slot.extras;
      const args = slot.args.text;
      const parsed = parseArguments(args);
      if (!slot.name) {
        invalidToolCalls.push({ id: slot.id, arguments: args, error: "The tool call has no name." });
      } else if (parsed.ok) {
        toolCalls.push({ id: slot.id, name: slot.name, arguments: parsed.value });
      } else {
        invalidToolCalls.push({ id: slot.id, name: slot.name, arguments: args, error: parsed.error });
      }
    }
    return { toolCalls, invalidToolCalls, extras };
  }

  #open(wireIndex: number, id: string): Slot {
    const slot: Slot = { index: this.#slots.length, id, name: "", args: new StreamedArguments(), extras: {} };
    this.#slots.push(slot);
    this.#byId.set(id, slot);
    this.#byWireIndex.set(wireIndex, slot);
    return slot;
  }
}

function parseArguments(text: string): { ok: true; value: Record<string, unknown> } | { ok: false; error: string } {
  if (text.trim().length === 0) return { ok: true, value: {} };
  try {
    const value: unknown = JSON.parse(text);
    // one-api's Gemini adaptor marshals the absent `args` of a call without arguments to "null"
    // (relay/adaptor/gemini/main.go getToolCalls): no arguments, like "" or "{}".
    if (value === null) return { ok: true, value: {} };
    if (typeof value === "object" && !Array.isArray(value)) {
      return { ok: true, value: value as Record<string, unknown> };
    }
    return { ok: false, error: "The arguments are JSON but not an object." };
  } catch (error) {
    return { ok: false, error: `The arguments are not valid JSON (${(error as Error).message}).` };
  }
}
