import { randomUUID } from "node:crypto";
import type { InvalidToolCall, ToolCall, ToolCallChunk } from "@langchain/core/messages/tool";
import type { ToolCall as WireToolCall, ToolCallDelta } from "../gateway/wire.js";
import type { ToolCallExtras } from "./convert-messages.js";
import { arrayOfLength } from "./plain-object.js";

/** Tool calls once a reply is complete: valid ones, ones whose arguments are not a JSON object,
 * and each call's unknown wire fields (sent back on the next turn). */
export interface AssembledToolCalls {
  readonly toolCalls: ToolCall[];
  readonly invalidToolCalls: InvalidToolCall[];
  readonly extras: ToolCallExtras;
}

interface Slot {
  readonly index: number;
  id: string;
  name: string;
  args: string;
  extras: Record<string, unknown>;
}

const KNOWN_FIELDS = new Set(["index", "id", "type", "function"]);

/** Builds tool calls from streamed fragments: by `index`, by position when `index` is absent, and
 * as a new call when a known index comes back with a new id. Arguments may split anywhere; they
 * are validated once, at the end. */
export class ToolCallAssembler {
  readonly #slots: Slot[] = [];
  readonly #byWireIndex = new Map<number, Slot>();
  readonly #byId = new Map<string, Slot>();

  /** True once any tool-call fragment arrived. */
  get started(): boolean {
    return this.#slots.length > 0;
  }

  /** Takes the `tool_calls` of one delta; returns them as LangChain chunks with stable indices. */
  add(deltas: readonly ToolCallDelta[]): ToolCallChunk[] {
    // A loop, `for in` and one literal per shape: this runs for every fragment of a streamed
    // call, and map's closure, Object.entries' pairs and conditional spreads cost more than the rest.
    // Sized, not grown by push: an empty array given one element gets room for 17.
    const chunks = arrayOfLength<ToolCallChunk>(deltas.length);
    for (let position = 0; position < deltas.length; position++) {
      const delta = deltas[position]!;
      const wireIndex = delta.index ?? position;
      let slot = delta.id ? this.#byId.get(delta.id) : this.#byWireIndex.get(wireIndex);
      const isNew = slot === undefined;
      // A new id is a new call, even when its index was used before (a reused index).
      slot ??= this.#open(wireIndex, delta.id || `call_${randomUUID().replace(/-/g, "").slice(0, 24)}`);
      const name = delta.function?.name;
      const args = delta.function?.arguments ?? "";
      const nameIsNew = Boolean(name) && !slot.name;
      if (nameIsNew) slot.name = name!;
      slot.args += args;
      for (const key in delta) {
        const value = delta[key];
        if (!KNOWN_FIELDS.has(key) && value !== undefined && value !== null) slot.extras[key] = value;
      }
      const index = slot.index;
      const type = "tool_call_chunk";
      if (isNew) chunks[position] = nameIsNew ? { type, index, id: slot.id, name, args } : { type, index, id: slot.id, args };
      else chunks[position] = nameIsNew ? { type, index, name, args } : { type, index, args };
    }
    return chunks;
  }

  /** Takes the complete `tool_calls` of a non-streamed reply. */
  addComplete(calls: readonly WireToolCall[]): void {
    this.add(calls.map((call, index) => ({ ...call, index })));
  }

  /** Validates every call's arguments (a JSON object; empty means `{}`) and returns the calls. */
  finish(): AssembledToolCalls {
    const toolCalls: ToolCall[] = [];
    const invalidToolCalls: InvalidToolCall[] = [];
    const extras: ToolCallExtras = {};
    for (const slot of this.#slots) {
      if (Object.keys(slot.extras).length > 0) extras[slot.id] = slot.extras;
      const parsed = parseArguments(slot.args);
      if (!slot.name) {
        invalidToolCalls.push({ type: "invalid_tool_call", id: slot.id, args: slot.args, error: "The tool call has no name." });
      } else if (parsed.ok) {
        toolCalls.push({ type: "tool_call", id: slot.id, name: slot.name, args: parsed.value });
      } else {
        invalidToolCalls.push({ type: "invalid_tool_call", id: slot.id, name: slot.name, args: slot.args, error: parsed.error });
      }
    }
    return { toolCalls, invalidToolCalls, extras };
  }

  #open(wireIndex: number, id: string): Slot {
    const slot: Slot = { index: this.#slots.length, id, name: "", args: "", extras: {} };
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
    if (typeof value === "object" && value !== null && !Array.isArray(value)) {
      return { ok: true, value: value as Record<string, unknown> };
    }
    return { ok: false, error: "The arguments are JSON but not an object." };
  } catch (error) {
    return { ok: false, error: `The arguments are not valid JSON (${(error as Error).message}).` };
  }
}
