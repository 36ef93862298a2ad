import {
  audioDurationS,
  audioTokens,
  countTextTokens,
  imageTokens,
  isVideoUrl,
  MAX_IMAGE_TOKENS,
  videoDurationS,
  videoTokens,
} from "../catalog/tokens.js";
import { ParameterError } from "../errors.js";
import { parseDataUri, probeImage } from "../media/probe.js";
import type { ChatRequest, ContentPart, Message } from "./wire.js";

// The catalogue's token rules applied to wire messages: what the local gateway bills for a prompt and what the
// client estimates, from one count.

/** Tokens per message of framing (role and separators), as the wire format's tokenizers count it. */
const TOKENS_PER_MESSAGE = 3;
/** Tokens that prime the assistant's reply. */
const REPLY_PRIMING_TOKENS = 3;

/** Prompt tokens of one content part. */
export function countPartTokens(part: ContentPart): number {
  switch (part.type) {
    case "text":
      return countTextTokens(part.text);
    case "image_url": {
      const data = parseDataUri(part.image_url.url);
      if (data && isVideoUrl(part.image_url.url)) return videoTokens(videoDurationS(data.bytes));
      const facts = data ? probeImage(data.bytes) : undefined;
      return facts ? imageTokens(facts.width, facts.height) : MAX_IMAGE_TOKENS;
    }
    case "input_audio":
      return audioTokens(audioDurationS(Buffer.from(part.input_audio.data, "base64"), part.input_audio.format));
    case "video_url": {
      const data = parseDataUri(part.video_url.url);
      if (!data) throw new ParameterError("video_url must be a data:video/mp4;base64 URI.");
      return videoTokens(videoDurationS(data.bytes));
    }
  }
}

/** Prompt tokens of one message, framing included. */
export function countMessageTokens(message: Message): number {
  return messageTokens(message, countTextTokens);
}

/** Prompt tokens a chat request is billed for: messages, tool definitions and reply priming. */
export function countPromptTokens(request: Pick<ChatRequest, "messages" | "tools" | "response_format">): number {
  return promptTokens(request, countTextTokens);
}

/** An upper bound of countPromptTokens that needs no tokenizer (it costs ~100 MB and a fraction
 * of a second to load): every token stands for at least one UTF-8 byte. Media parts are exact. */
export function promptTokensAtMost(request: Pick<ChatRequest, "messages" | "tools" | "response_format">): number {
  return promptTokens(request, utf8Bytes);
}

function utf8Bytes(text: string): number {
  return Buffer.byteLength(text, "utf8");
}

function messageTokens(message: Message, countText: (text: string) => number): number {
  let tokens = TOKENS_PER_MESSAGE + countText(message.role);
  if (typeof message.content === "string") tokens += countText(message.content);
  else if (Array.isArray(message.content)) {
    for (const part of message.content) tokens += part.type === "text" ? countText(part.text) : countPartTokens(part);
  }
  if (message.name) tokens += countText(message.name) + 1;
  for (const call of message.tool_calls ?? []) {
    tokens += countText(call.function.name) + countText(call.function.arguments) + 3;
  }
  return tokens;
}

function promptTokens(
  request: Pick<ChatRequest, "messages" | "tools" | "response_format">,
  countText: (text: string) => number,
): number {
  let tokens = REPLY_PRIMING_TOKENS;
  for (const message of request.messages) tokens += messageTokens(message, countText);
  if (request.tools?.length) tokens += countText(JSON.stringify(request.tools));
  if (request.response_format) tokens += countText(JSON.stringify(request.response_format));
  return tokens;
}
