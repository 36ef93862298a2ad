import { catalog } from "../src/catalog/index.js";
import { countTextTokens } from "../src/catalog/tokens.js";
import { chatRequestSchema, type ChatRequest, type Message, type Tool } from "../src/gateway/wire.js";
import { simulateChat, type SimulateContext, type SimulatedReply } from "../src/server/simulate/index.js";

/** Runs one simulated chat turn on a request the wire schema accepts, as the server would. */
export function chat(
  model: string,
  messages: Message[],
  extra: Partial<ChatRequest> = {},
  context: SimulateContext = { seed: 1 },
): Promise<SimulatedReply> {
  const request = chatRequestSchema.parse({ model, messages, ...extra });
  return simulateChat(request, catalog.getModel(model), context);
}

/** A user message. */
export function user(content: Message["content"]): Message {
  return { role: "user", content };
}

/** A function tool definition. */
export function tool(name: string, description: string, parameters: Record<string, unknown>): Tool {
  return { type: "function", function: { name, description, parameters } };
}

/** Visible tokens of a reply, as the billing counts them. */
export function visibleTokens(reply: SimulatedReply): number {
  return countTextTokens(reply.content);
}

export const weatherTool = tool("get_weather", "Get the current weather for a city", {
  type: "object",
  properties: {
    city: { type: "string", description: "City name" },
    unit: { type: "string", enum: ["celsius", "fahrenheit"] },
  },
  required: ["city"],
});

export const calculatorTool = tool("calculator", "Evaluate an arithmetic expression", {
  type: "object",
  properties: { expression: { type: "string" } },
  required: ["expression"],
});

export const readFileTool = tool("read_file", "Read a text file from the workspace", {
  type: "object",
  properties: { path: { type: "string" } },
  required: ["path"],
});

export const writeFileTool = tool("write_file", "Write text to a file in the workspace", {
  type: "object",
  properties: { path: { type: "string" }, content: { type: "string" } },
  required: ["path", "content"],
});
