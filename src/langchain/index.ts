// svc-flow/langchain: the LangChain chat model alone, for users who need nothing else.
export { ChatGateway } from "../chat/chat-gateway.js";
export type { ChatGatewayCallOptions } from "../chat/chat-gateway.js";
export type { ChatGatewayOptions } from "../chat/chat-gateway-options.js";
export { ChatWarning, ParameterWarning } from "../chat/parameter-warning.js";
export type { ChatWarningCode, WarningHandler } from "../chat/parameter-warning.js";
export { imagesFromMessage } from "../chat/decode-image-reply.js";
export type { MessageImage } from "../chat/decode-image-reply.js";
