import { AIMessage, type AIMessageChunk, type ContentBlock } from "@langchain/core/messages";

/** `response_metadata.model_provider` of ChatGateway's messages: LangChain looks up the content-block
 * translator by it when `contentBlocks` (or `outputVersion: "v1"`) asks for standard blocks. */
export const MODEL_PROVIDER = "svc-gateway";

type Translated = AIMessage | AIMessageChunk;

/** A message's standard content blocks: its reasoning (`additional_kwargs.reasoning_content`, as
 * relays send it) as a `reasoning` block first, then what LangChain gives for its content and tool
 * calls (text, images, tool calls), without empty text (a tool-call reply has none, as with ChatOpenAI). */
export function toStandardBlocks(message: Translated): ContentBlock.Standard[] {
  const reasoning = message.additional_kwargs?.reasoning_content;
  // A copy without model_provider gets LangChain's own translation of content and tool calls.
  const rest = new AIMessage({ content: message.content, tool_calls: message.tool_calls ?? [] }).contentBlocks.filter(
    (block) => !(block.type === "text" && block.text === ""),
  );
  if (typeof reasoning !== "string" || reasoning === "") return rest;
  return [{ type: "reasoning", reasoning }, ...rest];
}

// @langchain/core keeps its block translators in a map on globalThis (shared by every copy of the
// package), keyed by model_provider, and exports no way to add one; @langchain/deepseek's reading of
// `reasoning_content` is the model for ours. Importing `AIMessage` above created the map.
const registry = (
  globalThis as {
    lc_block_translators_registry?: Map<
      string,
      { translateContent: typeof toStandardBlocks; translateContentChunk: typeof toStandardBlocks }
    >;
  }
).lc_block_translators_registry;
registry?.set(MODEL_PROVIDER, { translateContent: toStandardBlocks, translateContentChunk: toStandardBlocks });
