// svc-flow/langchain: the LangChain chat model alone, for users who need nothing else.
export { ChatGateway } from "./chat-gateway.js";
export type { ChatGatewayCallOptions } from "./chat-gateway.js";
export type { ChatGatewayOptions } from "./chat-gateway-options.js";
export { imagesFromMessage } from "./build-reply-message.js";
export { langChainTracer } from "./langchain-tracer.js";
export type { TraceOptions } from "./langchain-tracer.js";
export type { CallTrace, SpanStart, TraceSpan, Tracer } from "../chat/trace-span.js";
export { toWireMessages } from "./convert-messages.js";
export { toWireTool, toWireToolChoice } from "./convert-tools.js";
export { ChatWarning, ParameterWarning } from "../chat/parameter-warning.js";
export type { ChatWarningCode, WarningHandler } from "../chat/parameter-warning.js";
export type { MessageImage } from "../chat/decode-image-reply.js";
