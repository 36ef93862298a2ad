import { probeImage } from "../media/probe.js";

/** A content block of a reply: text, or an image decoded from the reply's Markdown. */
export type ReplyBlock = { type: "text"; text: string } | { type: "image"; mimeType: string; data: string };

/** An image taken from a message, as bytes. */
export interface MessageImage {
  readonly mimeType: string;
  readonly bytes: Buffer;
}

// An image model answers with `![alt](data:image/png;base64,...)` in `content` (spec, section 2).
const MARKDOWN_IMAGE = /!\[[^\]]*\]\(\s*data:(image\/[a-z0-9.+-]+);base64,([A-Za-z0-9+/=\s]+?)\s*\)/gi;

/** Splits an image model's reply into text and image blocks; undefined when it holds no image. */
export function decodeImageReply(content: string): ReplyBlock[] | undefined {
  const blocks: ReplyBlock[] = [];
  let last = 0;
  for (const match of content.matchAll(MARKDOWN_IMAGE)) {
    pushText(blocks, content.slice(last, match.index));
    blocks.push({ type: "image", mimeType: match[1]!.toLowerCase(), data: match[2]!.replace(/\s+/g, "") });
    last = match.index + match[0].length;
  }
  if (last === 0) return undefined;
  pushText(blocks, content.slice(last));
  return blocks;
}

/** Counts the images in a reply's Markdown (image models bill per image). */
export function countReplyImages(content: string): number {
  return [...content.matchAll(MARKDOWN_IMAGE)].length;
}

/** The images of an image model's reply (its Markdown), as bytes. */
export function imagesFromReply(content: string): MessageImage[] {
  return (decodeImageReply(content) ?? []).flatMap((block) => (block.type === "image" ? [toImage(block)] : []));
}

/** Turns reply blocks back into the Markdown an assistant turn carries on the wire. */
export function replyBlocksToMarkdown(blocks: readonly Record<string, unknown>[]): string {
  return blocks
    .map((block) => {
      if (block.type === "text") return String(block.text ?? "");
      if (block.type === "image" && typeof block.data === "string") {
        return `![image](data:${String(block.mimeType ?? "image/png")};base64,${block.data})`;
      }
      if (block.type === "image" && typeof block.url === "string") return `![image](${block.url})`;
      return "";
    })
    .join("");
}

/** An image block as bytes; the bytes' own format wins over the label. */
export function toImage(block: { mimeType: string; data: string }): MessageImage {
  const bytes = Buffer.from(block.data, "base64");
  // Trust the bytes over the label when they say otherwise.
  const format = probeImage(bytes)?.format;
  return { mimeType: format ? `image/${format}` : block.mimeType, bytes };
}

function pushText(blocks: ReplyBlock[], text: string): void {
  const trimmed = text.trim();
  if (trimmed.length > 0) blocks.push({ type: "text", text: trimmed });
}
