import { AIMessage, HumanMessage, SystemMessage, type BaseMessage } from "@langchain/core/messages";
import { z } from "zod";
import { stringifyValue } from "../expression/index.js";
import { loadMediaPart, type MediaFolders, type MediaPart } from "../media/load-media.js";
import type { MediaKind } from "../media/media-source.js";

const text = z.unknown().transform((value) => (typeof value === "string" ? value : stringifyValue(value)));
// After rendering, one expression may give a single item or a list; missing items (an optional input) are dropped.
const mediaList = z
  .unknown()
  .transform((value) => (Array.isArray(value) ? value : [value]).filter((item) => item !== undefined && item !== null && item !== ""))
  .optional();

/** The message-building fields of chat and agent steps, after rendering. */
export const messageFieldsSchema = z.object({
  prompt: text,
  system: text.optional(),
  history: z.array(z.object({ role: z.enum(["user", "assistant"]), content: text })).optional(),
  images: mediaList,
  audio: mediaList,
  video: mediaList,
});
/** Rendered message fields. */
export type MessageFields = z.infer<typeof messageFieldsSchema>;

/** The conversation for a chat or agent step: system, history, then the prompt with its media. */
export async function buildChatMessages(fields: MessageFields, folders: MediaFolders): Promise<BaseMessage[]> {
  const messages: BaseMessage[] = [];
  if (fields.system !== undefined && fields.system !== "") messages.push(new SystemMessage(fields.system));
  for (const turn of fields.history ?? []) {
    messages.push(turn.role === "user" ? new HumanMessage(turn.content) : new AIMessage(turn.content));
  }
  const parts: MediaPart[] = [];
  const kinds: Array<[MediaKind, readonly unknown[] | undefined]> = [["image", fields.images], ["audio", fields.audio], ["video", fields.video]];
  for (const [kind, items] of kinds) {
    for (const item of items ?? []) parts.push(await loadMediaPart(item, kind, folders));
  }
  messages.push(parts.length === 0 ? new HumanMessage(fields.prompt) : new HumanMessage({ content: [{ type: "text", text: fields.prompt }, ...parts] }));
  return messages;
}
