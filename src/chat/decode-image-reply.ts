import { probeImage } from "../media/probe.js";

/** A content block of a reply: text, an image decoded from the reply's Markdown, or an image the
 * reply gave as an http(s) link (fetch it to keep it). */
export type ReplyBlock =
  | { type: "text"; text: string }
  | { type: "image"; mimeType: string; data: string }
  | { type: "image"; url: string };

/** An image taken from a message, as bytes. */
export interface MessageImage {
  readonly mimeType: string;
  readonly bytes: Buffer;
}

// An image model answers with `![alt](data:image/png;base64,...)` in `content` (spec, section 2).
// Relays that store images elsewhere give `![alt](https://...)`, a bare link to an image file, or an
// `images` field (OpenRouter), which the wire reader turns into the same Markdown.
const IMAGE_REFERENCE = new RegExp(
  [
    /!\[[^\]]*\]\(\s*data:(image\/[a-z0-9.+-]+);base64,([A-Za-z0-9+/=\s]+?)\s*\)/.source,
    /!\[[^\]]*\]\(\s*(https?:\/\/[^\s)]+)\s*\)/.source,
    /(?<![(\w])(https?:\/\/[^\s)<>"']+?\.(?:png|jpe?g|gif|webp)(?:\?[^\s)<>"']*)?)(?=[\s)<>"']|$)/.source,
  ].join("|"),
  "gi",
);

/** Splits an image model's reply into text and image blocks; undefined when it holds no image. */
export function decodeImageReply(content: string): ReplyBlock[] | undefined {
  const blocks: ReplyBlock[] = [];
  let last = 0;
  for (const match of content.matchAll(IMAGE_REFERENCE)) {
    pushText(blocks, content.slice(last, match.index));
    const [, mime, data, link, bare] = match;
    blocks.push(
      mime !== undefined && data !== undefined
        ? { type: "image", mimeType: mime.toLowerCase(), data: data.replace(/\s+/g, "") }
        : { type: "image", url: (link ?? bare)! },
    );
    last = match.index + match[0].length;
  }
  if (blocks.length === 0) return undefined;
  pushText(blocks, content.slice(last));
  return blocks;
}

/** Counts the images in a reply's Markdown, inline and linked (image models bill per image). */
export function countReplyImages(content: string): number {
  return [...content.matchAll(IMAGE_REFERENCE)].length;
}

/** The inline images of an image model's reply (its Markdown), as bytes. */
export function imagesFromReply(content: string): MessageImage[] {
  return (decodeImageReply(content) ?? []).flatMap((block) => (isInlineImage(block) ? [toImage(block)] : []));
}

/** The http(s) links of the images an image model's reply gave as links, in order. */
export function imageLinksFromReply(content: string): string[] {
  return (decodeImageReply(content) ?? []).flatMap((block) =>
    block.type === "image" && "url" in block ? [block.url] : [],
  );
}

/** True for an image block that carries its bytes (base64). */
export function isInlineImage(block: ReplyBlock): block is { type: "image"; mimeType: string; data: string } {
  return block.type === "image" && "data" in block;
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
