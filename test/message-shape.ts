import { inspect } from "node:util";
import {
  AIMessage,
  AIMessageChunk,
  BaseMessage,
  BaseMessageChunk,
  isAIMessageChunk,
  isBaseMessageChunk,
  mapChatMessagesToStoredMessages,
  mapStoredMessagesToChatMessages,
} from "@langchain/core/messages";

const PROTOTYPES = new Map<object | null, string>([
  [AIMessageChunk.prototype, "AIMessageChunk"],
  [Object.prototype, "Object"],
  [Array.prototype, "Array"],
  [null, "null"],
]);

/** Everything a consumer can read of an object graph: each object's prototype, extensibility and
 * own properties in order with their full descriptors, and which paths lead to the same object. */
export function shapeOf(root: unknown): unknown {
  const seen = new Map<object, number>();
  const visit = (value: unknown): unknown => {
    if (typeof value !== "object" || value === null) return { primitive: value };
    const seenAs = seen.get(value);
    if (seenAs !== undefined) return { sameObjectAs: seenAs };
    seen.set(value, seen.size);
    return {
      object: seen.size - 1,
      prototype: PROTOTYPES.get(Object.getPrototypeOf(value)) ?? "another prototype",
      extensible: Object.isExtensible(value),
      properties: Reflect.ownKeys(value).map((key) => {
        const { value: property, get, set, ...attributes } = Reflect.getOwnPropertyDescriptor(value, key)!;
        return {
          key: typeof key === "symbol" ? `symbol ${Symbol.keyFor(key)}` : key,
          ...attributes,
          get,
          set,
          value: visit(property),
        };
      }),
    };
  };
  return visit(root);
}

/** What type guards, getters, inspection and cloning make of a message. */
export function messageFacts(message: AIMessageChunk) {
  return {
    instanceOfAIMessageChunk: message instanceof AIMessageChunk,
    instanceOfBaseMessageChunk: message instanceof BaseMessageChunk,
    instanceOfBaseMessage: message instanceof BaseMessage,
    aiMessageChunk: AIMessageChunk.isInstance(message),
    aiMessage: AIMessage.isInstance(message),
    baseMessage: BaseMessage.isInstance(message),
    baseMessageChunk: BaseMessageChunk.isInstance(message),
    isAIMessageChunk: isAIMessageChunk(message),
    isBaseMessageChunk: isBaseMessageChunk(message),
    constructor: message.constructor,
    prototype: Object.getPrototypeOf(message),
    getType: message._getType(),
    type: message.type,
    text: message.text,
    contentBlocks: shapeOf(message.contentBlocks),
    lcId: message.lc_id,
    tag: Object.prototype.toString.call(message),
    inspected: inspect(message, { depth: 5 }),
    formatted: message.toFormattedString(),
    cloned: shapeOf(structuredClone(message)),
  };
}

/** Every serialized form of a message, and what comes back from its stored form. */
export function serializedForms(message: AIMessageChunk) {
  const stored = mapChatMessagesToStoredMessages([message]);
  return {
    json: JSON.stringify(message),
    toJSON: shapeOf(message.toJSON()),
    toDict: shapeOf(message.toDict()),
    stored: JSON.stringify(stored),
    restored: shapeOf(mapStoredMessagesToChatMessages(stored)),
  };
}
