import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { callChat } from "../src/chat/call-chat.js";
import { RateLimitError, type SvcFlowError } from "../src/errors.js";
import { GatewayClient } from "../src/gateway/gateway-client.js";
import { Scheduler } from "../src/scheduling/scheduler.js";
import { startLocalGateway, type LocalGateway } from "../src/server/index.js";
import { parseWorkflow, runWorkflow } from "../src/workflow/index.js";

// The gateway's concurrency limit is not published: a key here takes two requests at once, answers
// after 100 ms, and the client sends more. Retries are kept to two attempts with millisecond backoff,
// so without learning the key's pace most calls would run out of attempts while the two are busy.

const KEY = "sk-pace-two-at-once";
const CONTROL_KEY = "sk-pace-control";
const WAIT_KEY = "sk-pace-wait";
const fast = { attempts: 2, minDelayMs: 1, maxDelayMs: 5 };

let gateway: LocalGateway;
let dir: string;
const clients: GatewayClient[] = [];

beforeAll(async () => {
  gateway = await startLocalGateway({
    config: {
      keys: [
        { key: KEY, name: "pace", concurrency: 2 },
        { key: CONTROL_KEY, name: "control", concurrency: 2 },
        { key: WAIT_KEY, name: "wait" },
      ],
      faults: {
        seed: 1,
        latencyMs: 100,
        models: { "alpha-haiku-4-5-20251001": { rateLimitRate: 1, retryAfterS: 0.2 } },
      },
    },
  });
  dir = await mkdtemp(path.join(tmpdir(), "svc-flow-pace-"));
});

afterAll(async () => {
  await Promise.all(clients.map((client) => client.close()));
  await gateway.close();
  await rm(dir, { recursive: true, force: true });
});

function client(apiKey: string): GatewayClient {
  const created = new GatewayClient({ apiKey, baseURL: gateway.baseURL });
  clients.push(created);
  return created;
}

function rateLimited(name: string): number {
  return gateway.stats().keys.find((key) => key.name === name)?.requests.rateLimited ?? 0;
}

const ask = (index: number) => ({
  model: "beta-4o-mini",
  messages: [{ role: "user" as const, content: `Line ${index}` }],
});

describe("a key's concurrency limit, learnt from its 429s", () => {
  it("answers every call of a burst through a scheduler, which narrows to what the key takes", async () => {
    const scheduler = new Scheduler();
    const gatewayClient = client(KEY);
    const retried: SvcFlowError[] = [];
    const replies = await Promise.all(
      Array.from({ length: 10 }, (_, index) =>
        callChat(ask(index), {
          client: gatewayClient,
          scheduler,
          retry: fast,
          onWarning: () => undefined,
          onRetry: ({ error }) => retried.push(error),
        }),
      ),
    );
    expect(replies.map((reply) => reply.finishReason)).toEqual(Array(10).fill("stop"));
    // The limit was hit (that is how it was learnt), and the scheduler now sends at most two at once.
    expect(rateLimited("pace")).toBeGreaterThan(0);
    expect(scheduler.window).toBeLessThanOrEqual(2);
    // The 429s that narrowed it while others were in flight are marked so, and cost no attempt.
    expect(retried.some((error) => error instanceof RateLimitError && error.paced)).toBe(true);
  });

  it("runs out of attempts in the same burst without a scheduler (the control for the test above)", async () => {
    const gatewayClient = client(CONTROL_KEY);
    const outcomes = await Promise.allSettled(
      Array.from({ length: 10 }, (_, index) =>
        callChat(ask(index), { client: gatewayClient, retry: fast, onWarning: () => undefined }),
      ),
    );
    expect(outcomes.some((outcome) => outcome.status === "rejected" && outcome.reason instanceof RateLimitError)).toBe(
      true,
    );
  });

  it("finishes a map that sends more at once than the key takes", async () => {
    const items = Array.from({ length: 12 }, (_, index) => index).join(", ");
    const workflow = parseWorkflow(
      [
        "version: 1",
        "name: pace",
        "concurrency: 8",
        "defaults:",
        "  retry: { attempts: 2, minDelayMs: 1, maxDelayMs: 5 }",
        "steps:",
        "  - id: lines",
        `    map: [${items}]`,
        "    as: n",
        "    steps:",
        "      - id: line",
        "        uses: chat",
        '        with: { model: beta-4o-mini, prompt: "One line about lantern ${{ n }}", maxTokens: 24 }',
      ].join("\n"),
      { fileName: path.join(dir, "pace.yaml"), baseDir: dir },
    );
    const before = rateLimited("pace");
    const result = await runWorkflow(workflow, {
      outDir: path.join(dir, "run"),
      gateway: { baseURL: gateway.baseURL, apiKey: KEY },
      notice: () => undefined,
    });
    expect(result.status).toBe("done");
    expect(result.items).toEqual([{ key: "lines", succeeded: 12, failed: 0, total: 12 }]);
    expect(rateLimited("pace")).toBeGreaterThan(before);
  });
});

describe("a Retry-After longer than the workflow's longRetryAfterS", () => {
  async function runAgainstLimit(retry: string, out: string) {
    const workflow = parseWorkflow(
      [
        "version: 1",
        "name: wait",
        "steps:",
        "  - id: line",
        "    uses: chat",
        `    retry: ${retry}`,
        '    with: { model: alpha-haiku-4-5-20251001, prompt: "One line", maxTokens: 24 }',
      ].join("\n"),
      { fileName: path.join(dir, `${out}.yaml`), baseDir: dir },
    );
    const before = gateway.stats().keys.find((key) => key.name === "wait")?.requests.total ?? 0;
    const result = await runWorkflow(workflow, {
      outDir: path.join(dir, out),
      gateway: { baseURL: gateway.baseURL, apiKey: WAIT_KEY },
      notice: () => undefined,
    });
    const sent = (gateway.stats().keys.find((key) => key.name === "wait")?.requests.total ?? 0) - before;
    return { result, sent };
  }

  it("ends the retries at once and says which setting waits longer", async () => {
    const { result, sent } = await runAgainstLimit("{ attempts: 3, minDelayMs: 1, longRetryAfterS: 0.1 }", "short");
    expect(sent).toBe(1);
    expect(result.status).toBe("failed");
    expect(result.error?.code).toBe("rate_limited");
    expect(result.error?.message).toContain("longer than retry's longRetryAfterS (0.1 s): raise it");
  });

  it("waits it out when longRetryAfterS allows it", async () => {
    const { result, sent } = await runAgainstLimit("{ attempts: 3, minDelayMs: 1, longRetryAfterS: 1 }", "long");
    expect(sent).toBe(3);
    expect(result.status).toBe("failed");
    expect(result.error?.message).not.toContain("longRetryAfterS");
  });
});
