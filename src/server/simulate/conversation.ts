import type { ChatRequest, ContentPart, Message, ToolCall } from "../../gateway/wire.js";

/** A tool result the model is answering, with the call it answers. */
export interface ToolResult {
  readonly callId: string;
  readonly name: string;
  /** The call's arguments as JSON text ("{}" when the call is not in the history). */
  readonly arguments: string;
  readonly content: string;
}

/** What the simulated models read from a request. */
export interface Conversation {
  /** System and developer messages, joined. */
  readonly systemText: string;
  /** Text of the last user message. */
  readonly userText: string;
  /** Text of every user message, oldest first. */
  readonly userTexts: readonly string[];
  /** Media parts (images, audio, video) of the last user message that has any. */
  readonly media: readonly ContentPart[];
  /** True when the media came with the last user message itself. */
  readonly mediaIsNew: boolean;
  /** Role of the last message. */
  readonly lastRole: Message["role"];
  /** Tool calls the assistant made since the last user message, oldest first. */
  readonly callsSinceUser: readonly ToolCall[];
  /** Assistant turns with tool calls since the last user message. */
  readonly toolRounds: number;
  /** Tool results since the last user message, oldest first. */
  readonly toolResults: readonly ToolResult[];
}

/** The text of a message's content: a string, or its text parts joined by newlines. */
export function contentText(content: Message["content"]): string {
  if (typeof content === "string") return content;
  if (!Array.isArray(content)) return "";
  return content
    .filter((part): part is Extract<ContentPart, { type: "text" }> => part.type === "text")
    .map((part) => part.text)
    .join("\n");
}

function mediaParts(content: Message["content"]): ContentPart[] {
  return Array.isArray(content) ? content.filter((part) => part.type !== "text") : [];
}

function hasMedia(content: Message["content"]): boolean {
  return Array.isArray(content) && content.some((part) => part.type !== "text");
}

const NO_MEDIA: readonly ContentPart[] = [];

/** Reads what the simulation needs from a validated request. */
export function readConversation(request: Pick<ChatRequest, "messages">): Conversation {
  const { messages } = request;
  // Loops rather than filters, maps and copies of the messages: every new request is read.
  let lastUser = -1;
  let withMedia: Message | undefined;
  const userTexts: string[] = [];
  let systemText: string | undefined;
  for (let index = 0; index < messages.length; index++) {
    const message = messages[index]!;
    if (message.role === "user") {
      lastUser = index;
      userTexts.push(contentText(message.content));
      if (hasMedia(message.content)) withMedia = message;
    } else if (message.role === "system" || message.role === "developer") {
      const text = contentText(message.content);
      systemText = systemText === undefined ? text : `${systemText}\n${text}`;
    }
  }
  const calls: ToolCall[] = [];
  const results: ToolResult[] = [];
  let toolRounds = 0;
  for (let index = lastUser + 1; index < messages.length; index++) {
    const message = messages[index]!;
    if (message.role === "assistant" && message.tool_calls?.length) {
      toolRounds++;
      calls.push(...message.tool_calls);
    }
    if (message.role === "tool") {
      const call = calls.find((candidate) => candidate.id === message.tool_call_id);
      results.push({
        callId: message.tool_call_id ?? "",
        name: call?.function.name ?? message.name ?? "tool",
        arguments: call?.function.arguments ?? "{}",
        content: contentText(message.content),
      });
    }
  }
  return {
    systemText: systemText ?? "",
    userText: lastUser >= 0 ? userTexts[userTexts.length - 1]! : "",
    userTexts,
    media: withMedia ? mediaParts(withMedia.content) : NO_MEDIA,
    mediaIsNew: withMedia !== undefined && withMedia === messages[lastUser],
    lastRole: messages.at(-1)?.role ?? "user",
    callsSinceUser: calls,
    toolRounds,
    toolResults: results,
  };
}
