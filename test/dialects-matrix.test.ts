// The chat core, ChatGateway (invoke, stream, tools, structured output), an agent and the shipped
// workflows, each against the local gateway speaking every relay dialect.
import path from "node:path";
import { readdir, readFile } from "node:fs/promises";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { z } from "zod";
import { callChat } from "../src/chat/call-chat.js";
import { GatewayClient } from "../src/gateway/gateway-client.js";
import { ChatGateway } from "../src/langchain/chat-gateway.js";
import { DIALECT_NAMES, startLocalGateway, type DialectName, type LocalGateway } from "../src/server/index.js";
import { loadWorkflow, runWorkflow } from "../src/workflow/index.js";
import { startAgentHarness, type AgentHarness } from "./agent-harness.js";
import { gatewayOptions, tempDir } from "./workflow-harness.js";

const KEY = "sk-local-demo";
const WEATHER = {
  type: "function" as const,
  function: {
    name: "get_weather",
    description: "Weather for a city",
    parameters: { type: "object", properties: { city: { type: "string" } }, required: ["city"] },
  },
};
const TOOL_PROMPT = "What is the weather in Oslo? Use the get_weather tool.";
const FOLDER = path.join(import.meta.dirname, "..", "workflows");
const WORKFLOWS = (await readdir(FOLDER)).filter((name) => name.endsWith(".yaml")).sort();
// Relays that pass a model's reasoning along (docs/dialects.md).
const PASSES_REASONING: ReadonlySet<DialectName> = new Set(["new-api", "openrouter", "litellm"]);

describe.each(DIALECT_NAMES)("the %s dialect", (dialect) => {
  let gateway: LocalGateway;
  let client: GatewayClient;
  const model = (name: string) =>
    new ChatGateway({ model: name, apiKey: KEY, baseURL: gateway.baseURL, maxRetries: 0 });

  beforeAll(async () => {
    gateway = await startLocalGateway({ config: { dialect, music: { completeAfterMs: 20, clipSeconds: 1 } } });
    client = new GatewayClient({ apiKey: KEY, baseURL: gateway.baseURL });
  });
  afterAll(async () => {
    await client.close();
    await gateway.close();
  });

  it("gives the same text streamed and not, with usage that adds up", async () => {
    const request = {
      model: "alpha-sonnet-4-6",
      messages: [{ role: "user" as const, content: "Name three rivers of Europe." }],
      max_tokens: 200,
    };
    const reply = await callChat(request, { client });
    const stream = await callChat({ ...request, stream: true }, { client });
    let text = "";
    let finish: string | null | undefined;
    for await (const event of stream) {
      if (event.type === "text") text += event.text;
      if (event.type === "finish") finish = event.reply.finishReason;
    }
    expect(reply.content.length).toBeGreaterThan(0);
    expect(text).toBe(reply.content);
    expect(finish).toBe("stop");
    if (reply.usage) expect(reply.usage.total_tokens).toBe(reply.usage.prompt_tokens + reply.usage.completion_tokens);
  });

  it("surfaces reasoning where the relay passes it, and only there", async () => {
    const reply = await callChat(
      {
        model: "beta-5-mini",
        messages: [{ role: "user", content: "Explain why the sky is blue, step by step." }],
        stream: false,
      },
      { client },
    );
    expect(reply.content.length).toBeGreaterThan(0);
    if (PASSES_REASONING.has(dialect)) expect(reply.reasoning).toMatch(/reasoning tokens/);
    else expect(reply.reasoning).toBe("");
  });

  it("ChatGateway invokes and streams the same answer", async () => {
    const chat = model("beta-4o-mini");
    const invoked = await chat.invoke("Describe a lighthouse in one sentence.");
    let streamed = "";
    for await (const chunk of await chat.stream("Describe a lighthouse in one sentence."))
      streamed += String(chunk.content);
    expect(String(invoked.content).length).toBeGreaterThan(0);
    expect(streamed).toBe(invoked.content);
  });

  it("ChatGateway returns a tool call, streamed and not", async () => {
    const chat = model("beta-4o").bindTools([WEATHER]);
    const invoked = await chat.invoke(TOOL_PROMPT);
    expect(invoked.tool_calls?.[0]).toMatchObject({ name: "get_weather", args: { city: expect.any(String) } });
    let merged;
    for await (const chunk of await chat.stream(TOOL_PROMPT))
      merged = merged === undefined ? chunk : merged.concat(chunk);
    expect(merged?.tool_calls?.[0]).toMatchObject({ name: "get_weather", args: invoked.tool_calls?.[0]?.args });
  });

  it("gives structured output", async () => {
    const person = z.object({ name: z.string(), age: z.number() });
    const result = await model("alpha-sonnet-4-6")
      .withStructuredOutput(person, { name: "person" })
      .invoke("Make up a person named Ada who is 36.");
    expect(person.parse(result)).toBeTruthy();
  });

  // A workflow with an approval step runs until it waits for a person (exit 3); the rest run to done.
  it.each(WORKFLOWS)("runs the shipped workflow %s to done, or to its approval", async (name) => {
    const file = path.join(FOLDER, name);
    const workflow = await loadWorkflow(file);
    const result = await runWorkflow(workflow, gatewayOptions(gateway, { outDir: path.join(await tempDir(), name) }));
    expect(result.error).toBeUndefined();
    expect(result.status).toBe(/uses:\s*approval/.test(await readFile(file, "utf8")) ? "waiting" : "done");
  });
});

describe.each(DIALECT_NAMES)("an agent on the %s dialect", (dialect) => {
  let harness: AgentHarness;
  beforeAll(async () => {
    harness = await startAgentHarness({ dialect, music: { completeAfterMs: 20, clipSeconds: 1 } });
  });
  afterAll(async () => harness.close());

  it("answers its task with its tools", async () => {
    const run = await harness.run("data-analyst", "What is the total of the units in sales.csv?", {
      files: { "sales.csv": "month,units\nJan,120\nFeb,95\nMar,143\n" },
    });
    expect(run.outcome.toolCalls[0]).toMatchObject({ name: "read_file", arguments: { path: "sales.csv" } });
    expect(run.outcome.status).toBe("answered");
  });
});
