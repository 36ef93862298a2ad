import type { ModelInfo } from "../catalog/models.js";
import { isVideoUrl } from "../catalog/tokens.js";
import { AUDIO_FORMATS, type ChatRequest, type ContentPart } from "../gateway/wire.js";
import type { ErrorCode } from "./send-response.js";

/** A request that breaks a rule: the 400 to answer with. */
export interface RequestProblem {
  readonly code: ErrorCode;
  readonly param: string;
  readonly message: string;
}

const AUDIO_MODELS = "gamma-2.5-pro, gamma-2.5-flash or gamma-2.5-flash-lite";
const RESPONSE_FORMATS = new Set(["text", "json_object", "json_schema"]);

/** The first rule of the spec (and of the catalogue's model facts) a valid-shaped request breaks. */
export function checkChatRequest(request: ChatRequest, model: ModelInfo): RequestProblem | undefined {
  const { rules, capabilities } = model;
  if (rules.rejectsMaxTokens && request.max_tokens != null) {
    return invalid(
      "max_tokens",
      `${model.id} is a reasoning model and does not accept max_tokens. Use max_completion_tokens instead.`,
    );
  }
  for (const param of ["temperature", "top_p"] as const) {
    const value = request[param];
    if (value == null) continue;
    if (rules.rejectsSampling) {
      return invalid(param, `${model.id} does not accept temperature or top_p. Omit both.`);
    }
    if (value < 0 || value > 1) return invalid(param, `${param} must be between 0 and 1, got ${value}.`);
  }
  if (request.n != null && request.n !== 1)
    return invalid("n", "Only n = 1 is supported. Send one request per completion.");
  if (request.tools?.length && !capabilities.tools) {
    return invalid("tools", `${model.id} does not support tool calling. Remove tools or use a chat model.`);
  }
  const toolProblem = checkToolChoice(request);
  if (toolProblem) return toolProblem;
  if (request.response_format && !RESPONSE_FORMATS.has(request.response_format.type)) {
    return invalid(
      "response_format.type",
      `response_format.type must be text, json_object or json_schema, got "${request.response_format.type}".`,
    );
  }
  for (const [index, message] of request.messages.entries()) {
    if (message.role === "tool" && !message.tool_call_id) {
      return invalid(
        `messages[${index}].tool_call_id`,
        "A message with role tool needs the tool_call_id of the call it answers.",
      );
    }
    if (!Array.isArray(message.content)) continue;
    for (const [partIndex, part] of message.content.entries()) {
      const problem = checkPart(part, model, `messages[${index}].content[${partIndex}]`);
      if (problem) return problem;
    }
  }
  return undefined;
}

function checkToolChoice(request: ChatRequest): RequestProblem | undefined {
  const choice = request.tool_choice;
  if (choice === undefined || choice === "none" || choice === "auto") return undefined;
  if (!request.tools?.length) return invalid("tool_choice", "tool_choice needs tools. Send tools or omit tool_choice.");
  if (typeof choice === "object" && !request.tools.some((tool) => tool.function.name === choice.function.name)) {
    return invalid("tool_choice", `tool_choice names "${choice.function.name}", which is not among the tools sent.`);
  }
  return undefined;
}

function checkPart(part: ContentPart, model: ModelInfo, param: string): RequestProblem | undefined {
  if (part.type === "input_audio") {
    if (!(AUDIO_FORMATS as readonly string[]).includes(part.input_audio.format)) {
      return unsupported(
        `${param}.input_audio.format`,
        `input_audio format "${part.input_audio.format}" is not supported: send mp3 or wav (convert other formats first).`,
      );
    }
    if (!model.capabilities.audio) {
      return unsupported(param, `${model.id} does not accept audio input. Use ${AUDIO_MODELS}.`);
    }
  }
  const video = part.type === "video_url" || (part.type === "image_url" && isVideoUrl(part.image_url.url));
  if (video && !model.capabilities.video) {
    return unsupported(param, `${model.id} does not accept video input. Use ${AUDIO_MODELS}.`);
  }
  if (part.type === "image_url" && !video && !model.capabilities.vision) {
    return unsupported(param, `${model.id} does not accept image input.`);
  }
  if (part.type === "image_url" && !/^(https?:|data:)/i.test(part.image_url.url)) {
    return invalid(`${param}.image_url.url`, "image_url.url must be an http(s) link or a data: URI.");
  }
  return undefined;
}

function invalid(param: string, message: string): RequestProblem {
  return { code: "invalid_parameter", param, message };
}

function unsupported(param: string, message: string): RequestProblem {
  return { code: "unsupported_media", param, message };
}
