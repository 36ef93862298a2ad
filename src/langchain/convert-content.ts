import type { MessageContent } from "@langchain/core/messages";
import { ParameterError } from "../errors.js";
import type { ContentPart } from "../gateway/wire.js";
import { parseDataUri } from "../media/probe.js";

// LangChain content comes in three dialects: OpenAI-style parts (`image_url`, `input_audio`), the
// v0 data blocks (`source_type`, `mime_type`) and the v1 standard blocks (`url`/`data`,
// `mimeType`). All three become the wire's parts here.

type Block = Record<string, unknown>;

const AUDIO_MIME_FORMATS: Readonly<Record<string, string>> = {
  "audio/mpeg": "mp3",
  "audio/mp3": "mp3",
  "audio/mpeg3": "mp3",
  "audio/x-mp3": "mp3",
  "audio/x-mpeg-3": "mp3",
  "audio/wav": "wav",
  "audio/wave": "wav",
  "audio/x-wav": "wav",
  "audio/vnd.wave": "wav",
};

/** Block types that carry no input for the model (reasoning, tool-call echoes) and are skipped. */
const SKIPPED_TYPES = new Set(["reasoning", "thinking", "redacted_thinking", "tool_call", "tool_call_chunk"]);

/** LangChain message content as the wire's content: a string, or parts mixing text and media. */
export function toWireContent(content: MessageContent): string | ContentPart[] {
  if (typeof content === "string") return content;
  const parts: ContentPart[] = [];
  for (const block of content as readonly Block[]) {
    const part = toWirePart(block);
    if (part) parts.push(part);
  }
  if (parts.every((part) => part.type === "text")) {
    return parts.map((part) => (part.type === "text" ? part.text : "")).join("");
  }
  return parts;
}

/** One content block as a wire part; undefined for blocks that carry nothing for the model. */
export function toWirePart(block: Block): ContentPart | undefined {
  const type = typeof block.type === "string" ? block.type : undefined;
  if (type === undefined || SKIPPED_TYPES.has(type)) return undefined;
  switch (type) {
    case "text":
      return { type: "text", text: String(block.text ?? "") };
    case "image_url": {
      const image = block.image_url;
      const url = typeof image === "string" ? image : (image as { url?: unknown } | undefined)?.url;
      if (typeof url !== "string") throw new ParameterError("An image_url block needs image_url.url.");
      const detail = image !== null && typeof image === "object" ? (image as { detail?: unknown }).detail : undefined;
      return { type: "image_url", image_url: typeof detail === "string" ? { url, detail } : { url } };
    }
    case "input_audio": {
      const audio = block.input_audio as { data?: unknown; format?: unknown } | undefined;
      if (typeof audio?.data !== "string" || typeof audio.format !== "string") {
        throw new ParameterError("An input_audio block needs input_audio.data (base64) and input_audio.format.");
      }
      return { type: "input_audio", input_audio: { data: audio.data, format: audio.format } };
    }
    case "video_url": {
      const url = (block.video_url as { url?: unknown } | undefined)?.url;
      if (typeof url !== "string") throw new ParameterError("A video_url block needs video_url.url.");
      return { type: "video_url", video_url: { url } };
    }
    case "image":
      return { type: "image_url", image_url: { url: mediaUrl(block, "image") } };
    case "audio":
      return audioPart(block);
    case "video":
      return { type: "video_url", video_url: { url: mediaUrl(block, "video") } };
    case "file":
      return filePart(block);
    case "text-plain":
      return { type: "text", text: String(block.text ?? "") };
    default:
      throw new ParameterError(
        `Content block type "${type}" is not supported. Send text, image, audio (mp3/wav) or video blocks.`,
      );
  }
}

function filePart(block: Block): ContentPart | undefined {
  if (block.source_type === "text") return { type: "text", text: String(block.text ?? "") };
  const mime = mimeOf(block) ?? (typeof block.url === "string" ? parseDataUri(block.url)?.mime : undefined);
  if (mime?.startsWith("image/")) return { type: "image_url", image_url: { url: mediaUrl(block, "image") } };
  if (mime?.startsWith("audio/")) return audioPart(block);
  if (mime?.startsWith("video/")) return { type: "video_url", video_url: { url: mediaUrl(block, "video") } };
  throw new ParameterError(
    `File blocks of type "${mime ?? "unknown"}" are not supported: the gateway takes images, audio (mp3/wav) ` +
      "and video. Send text as a text block.",
  );
}

function audioPart(block: Block): ContentPart {
  let data = base64Of(block);
  let mime = mimeOf(block);
  if (data === undefined && typeof block.url === "string") {
    const decoded = parseDataUri(block.url);
    if (!decoded) {
      throw new ParameterError(
        "Audio must be sent inline (base64 data or a data: URI), not as a link. Download the file first.",
      );
    }
    data = decoded.bytes.toString("base64");
    mime ??= decoded.mime;
  }
  if (data === undefined) throw new ParameterError("An audio block needs data (base64) or a data: URI.");
  const format = mime ? AUDIO_MIME_FORMATS[mime] : undefined;
  if (!format) {
    throw new ParameterError(
      `Audio of type "${mime ?? "unknown"}" is not accepted: the gateway takes mp3 or wav only. ` +
        "Convert the file first (for example `ffmpeg -i input.ogg output.mp3`) and set mimeType to audio/mpeg or audio/wav.",
    );
  }
  return { type: "input_audio", input_audio: { data, format } };
}

function mediaUrl(block: Block, kind: "image" | "video"): string {
  if (typeof block.url === "string") return block.url;
  const data = base64Of(block);
  if (data !== undefined) {
    const mime = mimeOf(block);
    if (!mime) throw new ParameterError(`A base64 ${kind} block needs mimeType (for example "${kind}/png").`);
    return `data:${mime};base64,${data}`;
  }
  if (block.fileId !== undefined || block.source_type === "id") {
    throw new ParameterError(`The gateway has no file store: send the ${kind} as a URL or as base64 data.`);
  }
  throw new ParameterError(`An ${kind} block needs url or data.`);
}

function base64Of(block: Block): string | undefined {
  const data = block.data;
  if (typeof data === "string") return data;
  if (data instanceof Uint8Array) return Buffer.from(data.buffer, data.byteOffset, data.byteLength).toString("base64");
  return undefined;
}

function mimeOf(block: Block): string | undefined {
  const mime = block.mimeType ?? block.mime_type;
  return typeof mime === "string" ? mime.split(";")[0]!.trim().toLowerCase() : undefined;
}
