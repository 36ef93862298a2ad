import fc from "fast-check";
// Sets up the AsyncLocalStorage a run hands its config down by (as langgraph and createAgent do).
import "@langchain/core/context";
import { ensureConfig, RunnableLambda } from "@langchain/core/runnables";
import { describe, expect, it } from "vitest";
import { ChatGateway } from "../src/chat/chat-gateway.js";
import { splitCallOptions } from "../src/chat/split-call-options.js";

// A model only to reach LangChain's own split; nothing is sent.
const model = new ChatGateway({ model: "beta-4o-mini", apiKey: "sk-local-demo", baseURL: "http://127.0.0.1:9/v1" });

type Split = (options: unknown) => [Record<string, unknown>, Record<string, unknown>];

// LangChain's split as its stream makes it (of the options after ensureConfig), or as its invoke
// does (of the options as given).
function langchainSplit(options: Record<string, unknown>, ensured = true) {
  const split = (model as unknown as { _separateRunnableConfigFromCallOptionsCompat: Split })._separateRunnableConfigFromCallOptionsCompat.bind(model);
  return split(ensured ? ensureConfig(options) : options);
}

// Ours leaves the call options' keys in the config too; the config's own keys must be LangChain's.
function ourSplit(options: Record<string, unknown>) {
  const [config, callOptions] = splitCallOptions(options);
  const [theirs] = langchainSplit(options);
  return [Object.fromEntries(Object.keys(theirs).map((key) => [key, (config as Record<string, unknown>)[key]])), callOptions];
}

const value = fc.oneof(fc.constant(undefined), fc.string(), fc.integer(), fc.array(fc.string(), { maxLength: 3 }), fc.dictionary(fc.string({ maxLength: 4 }), fc.string()));
const options = fc.record(
  {
    tags: fc.array(fc.string(), { maxLength: 3 }),
    metadata: fc.dictionary(fc.string({ maxLength: 4 }), fc.string()),
    runName: fc.string(),
    configurable: fc.dictionary(fc.string({ maxLength: 4 }), fc.string()),
    recursionLimit: fc.integer(),
    maxConcurrency: fc.integer(),
    runId: fc.uuid(),
    callbacks: fc.constant([]),
    signal: fc.constant(new AbortController().signal),
    stop: fc.array(fc.string(), { maxLength: 2 }),
    tool_choice: value,
    tools: value,
    idempotencyKey: value,
    maxTokens: value,
  },
  { requiredKeys: [] },
);

describe("splitCallOptions", () => {
  it.each([
    ["stream", true],
    ["invoke", false],
  ])("splits options exactly as LangChain's %s splits them", (_path, ensured) => {
    fc.assert(
      fc.property(options, (given) => {
        expect(ourSplit(given)).toEqual(langchainSplit(given, ensured));
      }),
    );
  });

  it("takes in the config of the run it is called from, as LangChain does", async () => {
    const outer = RunnableLambda.from(() => [ourSplit({ stop: ["x"] }), langchainSplit({ stop: ["x"] })]);
    const handler = { handleChainStart() {} };
    const [ours, theirs] = await outer.invoke(undefined, { tags: ["outer"], callbacks: [handler] });
    expect(ours).toEqual(theirs);
    // The outer run's handler reaches the model, so it takes LangChain's observed path.
    expect((ours![0] as { callbacks?: { handlers: unknown[] } }).callbacks?.handlers).toHaveLength(1);
    expect(ours![1]).toEqual({ stop: ["x"], signal: undefined });
  });

  it("turns a timeout into the call options' signal", async () => {
    const [config, callOptions] = splitCallOptions<{ signal?: AbortSignal; timeout?: number }>({ timeout: 20 });
    expect(config.timeout).toBeUndefined();
    expect(callOptions.signal).toBe(config.signal);
    expect(callOptions.signal?.aborted).toBe(false);
    await new Promise((resolve) => setTimeout(resolve, 60));
    expect(callOptions.signal?.aborted).toBe(true);
  });
});
