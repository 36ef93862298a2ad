import { StreamedArguments } from "./streamed-arguments.js";
import type { ChatChunk, ChatResponse, ReplyMessage, ToolCall, Usage } from "./wire.js";

interface Choice {
  role: string;
  content: string;
  reasoning: string;
  finish: string | null;
  calls: ToolCall[];
  /** Each call's arguments as their fragments came; its text is set once the stream ends. */
  args: Map<ToolCall, StreamedArguments>;
}

/**
 * The whole reply a stream makes, as a non-streamed response: what a relay that streams every answer sends to a
 * request with `stream: false` (decolua/9router#3492, kaito-project/kaito#1880). Text and reasoning are joined,
 * tool-call fragments put together by index (or onto the last call when a relay sends none), the last usage kept.
 */
export async function foldStreamReply(chunks: AsyncIterable<ChatChunk>): Promise<ChatResponse> {
  let id: string | undefined;
  let model: string | undefined;
  let created: number | undefined;
  let usage: Usage | undefined;
  const choices = new Map<number, Choice>();
  for await (const chunk of chunks) {
    id ??= chunk.id;
    model = chunk.model ?? model;
    created ??= chunk.created ?? undefined;
    if (chunk.usage != null) usage = chunk.usage;
    for (const { index, delta, finish_reason } of chunk.choices) {
      let choice = choices.get(index);
      if (choice === undefined) {
        choice = { role: "assistant", content: "", reasoning: "", finish: null, calls: [], args: new Map() };
        choices.set(index, choice);
      }
      if (delta.role) choice.role = delta.role;
      choice.content += delta.content ?? "";
      choice.reasoning += delta.reasoning_content ?? "";
      for (const fragment of delta.tool_calls ?? []) addFragment(choice, fragment);
      if (finish_reason) choice.finish = finish_reason;
    }
  }
  return {
    ...(id === undefined ? {} : { id }),
    object: "chat.completion",
    ...(created === undefined ? {} : { created }),
    ...(model === undefined ? {} : { model }),
    choices: [...choices.entries()]
      .sort(([left], [right]) => left - right)
      .map(([index, choice]) => ({ index, finish_reason: choice.finish, message: messageOf(choice) })),
    ...(usage === undefined ? {} : { usage }),
  };
}

function addFragment(
  { calls, args }: Choice,
  fragment: NonNullable<ChatChunk["choices"][number]["delta"]["tool_calls"]>[number],
) {
  const name = fragment.function?.name;
  const startsCall = Boolean(fragment.id) || Boolean(name);
  let call = fragment.index == null ? (startsCall ? undefined : calls.at(-1)) : calls[fragment.index];
  if (call === undefined || (fragment.index == null && startsCall && call.id !== fragment.id)) {
    call = { id: "", type: "function", function: { name: "", arguments: "" } };
    if (fragment.index == null) calls.push(call);
    else calls[fragment.index] = call;
  }
  if (fragment.id) call.id = fragment.id;
  if (name) call.function.name = name;
  let streamed = args.get(call);
  if (streamed === undefined) {
    streamed = new StreamedArguments();
    args.set(call, streamed);
  }
  streamed.add(fragment.function?.arguments ?? "");
}

function messageOf(choice: Choice): ReplyMessage {
  const calls = choice.calls.filter((call) => call !== undefined);
  for (const call of calls) call.function.arguments = choice.args.get(call)?.text ?? "";
  return {
    role: choice.role,
    content: choice.content === "" && calls.length > 0 ? null : choice.content,
    ...(choice.reasoning === "" ? {} : { reasoning_content: choice.reasoning }),
    ...(calls.length === 0 ? {} : { tool_calls: calls }),
  };
}
