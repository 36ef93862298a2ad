import type { z } from "zod";
import { isChatRequest } from "../gateway/wire-guards.js";
import {
  audioPartSchema,
  chatRequestSchema,
  imagePartSchema,
  messageSchema,
  textPartSchema,
  toolCallSchema,
  toolChoiceSchema,
  toolSchema,
  videoPartSchema,
  type ChatRequest,
  type Message,
} from "../gateway/wire.js";

/** What `chatRequestSchema.safeParse` gives. */
export type ChatRequestParse = { success: true; data: ChatRequest } | { success: false; error: z.ZodError };

/**
 * A request body checked against the wire format, as `chatRequestSchema.safeParse` gives it, but
 * without zod's few microseconds when the body is certainly valid (`isChatRequest`) and already
 * in the order zod would rebuild it in. zod copies every object with the schema's fields first;
 * the reply cache key and the reply's seed are the request's JSON text, so a body in another
 * order goes through zod and gets exactly the copy it always got.
 */
export function parseChatRequest(body: unknown): ChatRequestParse {
  if (isChatRequest(body) && inSchemaOrder(body)) return { success: true, data: body };
  return chatRequestSchema.safeParse(body);
}

type Shape = ReadonlyMap<string, number>;
interface ObjectSchema {
  readonly shape?: Readonly<Record<string, unknown>>;
  unwrap?(): unknown;
}

// The positions of a schema's fields (optional and nullable wrappers looked through).
function fieldsOf(schema: unknown): Shape {
  let inner = schema as ObjectSchema;
  while (inner.shape === undefined && inner.unwrap) inner = inner.unwrap() as ObjectSchema;
  return new Map(Object.keys(inner.shape ?? {}).map((key, index) => [key, index]));
}

function field(schema: unknown, key: string): unknown {
  return (schema as ObjectSchema).shape?.[key];
}

const REQUEST = fieldsOf(chatRequestSchema);
const STREAM_OPTIONS = fieldsOf(field(chatRequestSchema, "stream_options"));
const RESPONSE_FORMAT = fieldsOf(field(chatRequestSchema, "response_format"));
const MESSAGE = fieldsOf(messageSchema);
const TOOL_CALL = fieldsOf(toolCallSchema);
const TOOL_CALL_FUNCTION = fieldsOf(field(toolCallSchema, "function"));
const TOOL = fieldsOf(toolSchema);
const TOOL_FUNCTION = fieldsOf(field(toolSchema, "function"));
const TOOL_CHOICE_SCHEMA = toolChoiceSchema.options[1];
const TOOL_CHOICE = fieldsOf(TOOL_CHOICE_SCHEMA);
const TOOL_CHOICE_FUNCTION = fieldsOf(field(TOOL_CHOICE_SCHEMA, "function"));
// A content part's fields, and those of the object its type names (`image_url: { url, detail }`).
const PARTS: Readonly<Record<string, readonly [Shape, Shape | undefined]>> = {
  text: [fieldsOf(textPartSchema), undefined],
  image_url: [fieldsOf(imagePartSchema), fieldsOf(field(imagePartSchema, "image_url"))],
  input_audio: [fieldsOf(audioPartSchema), fieldsOf(field(audioPartSchema, "input_audio"))],
  video_url: [fieldsOf(videoPartSchema), fieldsOf(field(videoPartSchema, "video_url"))],
};

/** True when zod's copy of a valid request has its keys in the request's own order. */
export function inSchemaOrder(request: ChatRequest): boolean {
  if (!ordered(request, REQUEST)) return false;
  if (request.stream_options != null && !ordered(request.stream_options, STREAM_OPTIONS)) return false;
  if (request.response_format !== undefined && !ordered(request.response_format, RESPONSE_FORMAT)) return false;
  for (const message of request.messages) if (!messageInOrder(message)) return false;
  for (const tool of request.tools ?? []) {
    if (!ordered(tool, TOOL) || !ordered(tool.function, TOOL_FUNCTION)) return false;
    // A record keeps its keys' order; zod drops only a "__proto__" key.
    if (tool.function.parameters !== undefined && Object.hasOwn(tool.function.parameters, "__proto__")) return false;
  }
  const choice = request.tool_choice;
  return typeof choice !== "object" || (ordered(choice, TOOL_CHOICE) && ordered(choice.function, TOOL_CHOICE_FUNCTION));
}

function messageInOrder(message: Message): boolean {
  if (!ordered(message, MESSAGE)) return false;
  if (Array.isArray(message.content)) {
    for (const part of message.content) {
      const [outer, inner] = PARTS[part.type]!;
      if (!ordered(part, outer)) return false;
      if (inner && !ordered((part as unknown as Record<string, object>)[part.type]!, inner)) return false;
    }
  }
  for (const call of message.tool_calls ?? [])
    if (!ordered(call, TOOL_CALL) || !ordered(call.function, TOOL_CALL_FUNCTION)) return false;
  return true;
}

// zod copies the schema's fields in the schema's order, then the others in the object's order,
// leaving out "__proto__" (an own key in parsed JSON, a prototype in an object literal).
function ordered(value: object, shape: Shape): boolean {
  let last = -1;
  for (const key in value) {
    if (key === "__proto__") return false;
    const position = shape.get(key) ?? shape.size;
    if (position < last) return false;
    last = position;
  }
  return true;
}
