import { tool } from "@langchain/core/tools";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { z } from "zod";
import {
  AgentRunner,
  createAgentByName,
  defineAgent,
  getAgentDefinition,
  listAgentDefinitions,
  listAgentNames,
  type AgentDefinitionInput,
  type AgentEvent,
} from "../agents/index.js";
import { CostLedger } from "../src/cost/cost-ledger.js";
import { AbortedError, AuthenticationError, ConfigError, SvcFlowError, UnknownModelError } from "../src/errors.js";
import { startAgentHarness, type AgentHarness } from "./agent-harness.js";

let harness: AgentHarness;

beforeAll(async () => {
  harness = await startAgentHarness();
});
afterAll(async () => {
  await harness.close();
});

const FACTS = { "facts.txt": "Lumo is a solar lantern made in Kyoto.\n" };
const TASK = "Open facts.txt and tell me where the lantern is made.";

describe("the agent registry", () => {
  it("lists the ready agents", () => {
    expect(listAgentNames()).toEqual(["data-analyst", "media-producer", "research-assistant"]);
  });

  it("gives every agent a system prompt, tools and a step limit", () => {
    const agents = listAgentDefinitions();
    expect(agents.map((agent) => agent.name)).toEqual(listAgentNames());
    for (const agent of agents) {
      expect(agent.system.length).toBeGreaterThan(100);
      expect(agent.tools.length).toBeGreaterThan(0);
      expect(agent.maxSteps).toBeGreaterThan(0);
    }
    expect(getAgentDefinition("data-analyst").tools).toEqual(["list_files", "read_file", "calculator"]);
  });

  it("refuses an unknown agent, naming the known ones", async () => {
    const workspace = await harness.workspace();
    expect(() => createAgentByName("poet", { workspace })).toThrow(
      'Unknown agent "poet". Agents: data-analyst, media-producer, research-assistant.',
    );
    try {
      createAgentByName("poet", { workspace });
    } catch (error) {
      expect(error).toBeInstanceOf(ConfigError);
      expect(error).toMatchObject({ code: "unknown_agent" });
    }
  });

  it("refuses a model the agent cannot run on before any request", async () => {
    const workspace = await harness.workspace();
    expect(() => createAgentByName("research-assistant", { workspace, model: "gamma-2.5-flash-image" })).toThrow(
      /does not call tools/,
    );
    expect(() => createAgentByName("research-assistant", { workspace, model: "alpha-sonet" })).toThrow(
      UnknownModelError,
    );
  });
});

describe("defineAgent", () => {
  it("makes a new agent from a few lines that runs against the gateway", async () => {
    const calculatorHelper = defineAgent({
      name: "calculator-helper",
      description: "Does arithmetic with the calculator",
      system: "You do arithmetic. Use the calculator for every calculation, then give the result.",
      tools: ["calculator"],
      model: "beta-4o",
    });
    const ledger = new CostLedger();
    const agent = new AgentRunner(calculatorHelper, {
      workspace: await harness.workspace(),
      gateway: harness.connection,
      ledger,
    });
    try {
      const outcome = await agent.run("Calculate 12 * 7.");
      expect(outcome).toMatchObject({ status: "answered", agent: "calculator-helper", model: "beta-4o" });
      expect(outcome.toolCalls).toEqual([
        { name: "calculator", arguments: { expression: "12 * 7" }, result: "84", failed: false },
      ]);
      if (outcome.status === "answered") expect(outcome.answer).toContain("84");
      // beta-4o has no published price: its calls are recorded with their tokens, as unpriced.
      expect(ledger.summary()).toMatchObject({ complete: false, unpriced: { calls: 2, models: ["beta-4o"] } });
    } finally {
      await agent.close();
    }
  });

  it("takes tools of your own beside the library's", async () => {
    const weather = tool(async ({ city }) => `Sunny and 21 degrees in ${city}.`, {
      name: "get_weather",
      description: "Current weather for a city.",
      schema: z.object({ city: z.string().describe("City name, e.g. Kyoto") }),
    });
    const travelHelper = defineAgent({
      name: "travel-helper",
      description: "Answers travel questions",
      system: "You help travellers. Check the weather with get_weather and do sums with the calculator.",
      tools: [weather, "calculator"],
      model: "alpha-sonnet-4-6",
      maxSteps: 6,
    });
    const agent = new AgentRunner(travelHelper, { workspace: await harness.workspace(), gateway: harness.connection });
    try {
      const outcome = await agent.run("What is the weather in Kyoto?");
      expect(agent.tools.map((created) => created.name)).toEqual(["calculator", "get_weather"]);
      expect(outcome.toolCalls).toEqual([
        { name: "get_weather", arguments: { city: "Kyoto" }, result: "Sunny and 21 degrees in Kyoto.", failed: false },
      ]);
      if (outcome.status === "answered") expect(outcome.answer).toContain("Sunny and 21 degrees in Kyoto");
    } finally {
      await agent.close();
    }
  });

  it.each([
    [{ name: "Bad Name" }, /name: a kebab-case name/],
    [{ tools: ["calculator", "shell"] }, /unknown tool shell\. Known tools: .*calculator/],
    [{ model: "gamma-2.5-flash-image" }, /does not call tools/],
    [{ maxSteps: 0 }, /maxSteps/],
    [{ tools: [{ answer: 42 }] }, /expected a tool name from tools\/ or a LangChain tool/],
    [
      {
        tools: ["calculator", tool(async () => "0", { name: "calculator", description: "mine", schema: z.object({}) })],
      },
      /two tools named calculator/,
    ],
  ])("refuses a definition with %o", (change, message) => {
    const base = { name: "helper", description: "d", system: "s", tools: ["calculator"], model: "alpha-sonnet-4-6" };
    expect(() => defineAgent({ ...base, ...(change as Partial<AgentDefinitionInput>) })).toThrow(message);
  });
});

describe("a run's limits and failures", () => {
  it("ends with a clear result at the step limit, without running the last step's tools", async () => {
    const run = await harness.run("research-assistant", TASK, { files: FACTS, maxSteps: 1 });
    expect(run.outcome).toMatchObject({ status: "step_limit", steps: 1, toolCalls: [] });
    if (run.outcome.status !== "step_limit") return;
    expect(run.outcome.message).toBe(
      "Stopped after 1 step without a final answer: step 1 still called read_file, which was not run. " +
        "Raise the step limit (--max-steps, now 1) or make the task more direct.",
    );
    expect(run.events.map((event) => event.type)).toEqual(["start", "model", "stopped"]);
    expect(run.ledger.entries()).toHaveLength(1);
  });

  it("lets the step limit be raised per run", async () => {
    const run = await harness.run("research-assistant", TASK, { files: FACTS, maxSteps: 2 });
    expect(run.outcome.status).toBe("answered");
  });

  it("reports a model's warnings as events of the run", async () => {
    const run = await harness.run("research-assistant", TASK, { files: FACTS, model: "gamma-2.5-pro" });
    const warnings = run.events.filter((event) => event.type === "warning");
    expect(warnings).toContainEqual(expect.objectContaining({ type: "warning", code: "budget_raised" }));
    expect(run.outcome).toMatchObject({ status: "answered", model: "gamma-2.5-pro" });
  });

  it("throws the typed error, not a wrapper, when the key is wrong, and reports it as an event", async () => {
    const events: AgentEvent[] = [];
    const agent = createAgentByName("research-assistant", {
      workspace: await harness.workspace(FACTS),
      gateway: { ...harness.connection, apiKey: "sk-wrong-key" },
      onEvent: (event) => events.push(event),
    });
    try {
      const failure = agent.run(TASK);
      await expect(failure).rejects.toBeInstanceOf(AuthenticationError);
      expect(events.at(-1)).toMatchObject({ type: "failed", code: "invalid_api_key" });
      expect(JSON.stringify(events)).not.toContain("sk-wrong-key");
    } finally {
      await agent.close();
    }
  });

  it("stops when its signal is aborted", async () => {
    const controller = new AbortController();
    const agent = createAgentByName("research-assistant", {
      workspace: await harness.workspace(FACTS),
      gateway: harness.connection,
    });
    try {
      const run = agent.run(TASK, {
        signal: controller.signal,
        onEvent: (event) => {
          if (event.type === "model") controller.abort(new Error("stop"));
        },
      });
      await expect(run).rejects.toBeInstanceOf(AbortedError);
      await expect(run).rejects.toThrow("The operation was aborted: stop.");
    } finally {
      await agent.close();
    }
  });

  it("refuses to start a turn the budget cannot bound, before anything is sent", async () => {
    const before = harness.gateway.stats().keys.flatMap((key) => key.billed).length;
    const ledger = new CostLedger({ maxYuan: 0.01 });
    const failure = harness.run("research-assistant", TASK, { files: FACTS, ledger });
    await expect(failure).rejects.toMatchObject({ code: "budget_exceeded" });
    await expect(failure).rejects.toBeInstanceOf(SvcFlowError);
    expect(ledger.entries()).toEqual([]);
    expect(harness.gateway.stats().keys.flatMap((key) => key.billed).length).toBe(before);
  });
});
