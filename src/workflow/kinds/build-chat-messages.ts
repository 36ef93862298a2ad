import { z } from "zod";
import type { Message } from "../../gateway/wire.js";
import { stringifyValue } from "../expression/index.js";
import { loadMediaPart, type MediaFolders, type MediaPart } from "../media/load-media.js";
import type { MediaKind } from "../media/media-source.js";

const text = z.unknown().transform((value) => (typeof value === "string" ? value : stringifyValue(value)));
// After rendering, one expression may give a single item or a list; missing items (an optional input) are dropped.
const mediaList = z
  .unknown()
  .transform((value) =>
    (Array.isArray(value) ? value : [value]).filter((item) => item !== undefined && item !== null && item !== ""),
  )
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
export async function buildChatMessages(fields: MessageFields, folders: MediaFolders): Promise<Message[]> {
  const messages: Message[] = [];
  if (fields.system !== undefined && fields.system !== "") messages.push({ role: "system", content: fields.system });
  for (const turn of fields.history ?? []) messages.push({ role: turn.role, content: turn.content });
  const parts: MediaPart[] = [];
  const kinds: Array<[MediaKind, readonly unknown[] | undefined]> = [
    ["image", fields.images],
    ["audio", fields.audio],
    ["video", fields.video],
  ];
  for (const [kind, items] of kinds) {
    for (const item of items ?? []) parts.push(await loadMediaPart(item, kind, folders));
  }
  messages.push({
    role: "user",
    content: parts.length === 0 ? fields.prompt : [{ type: "text", text: fields.prompt }, ...parts],
  });
  return messages;
}
