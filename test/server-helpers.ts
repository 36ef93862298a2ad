// Shared by the test/server-*.test.ts suites: a gateway per suite and small HTTP helpers.
import { afterAll, beforeAll } from "vitest";
import { startLocalGateway, type LocalGateway, type LocalGatewayOptions } from "../src/server/index.js";

/** Starts a local gateway on port 0 before the suite's tests and closes it after them. */
export function useGateway(options: LocalGatewayOptions = {}): () => LocalGateway {
  let gateway: LocalGateway | undefined;
  beforeAll(async () => {
    gateway = await startLocalGateway(options);
  });
  afterAll(async () => {
    await gateway?.close();
  });
  return () => {
    if (!gateway) throw new Error("The gateway has not started yet.");
    return gateway;
  };
}

/** POSTs JSON with a bearer key. */
export function postJson(
  url: string,
  body: unknown,
  key = "sk-local-demo",
  headers: Record<string, string> = {},
  signal?: AbortSignal,
): Promise<Response> {
  return fetch(url, {
    method: "POST",
    headers: { authorization: `Bearer ${key}`, "content-type": "application/json", ...headers },
    body: typeof body === "string" ? body : JSON.stringify(body),
    ...(signal === undefined ? {} : { signal }),
  });
}

/** GETs with a bearer key. */
export function getWithKey(url: string, key = "sk-local-demo"): Promise<Response> {
  return fetch(url, { headers: { authorization: `Bearer ${key}` } });
}

/** The `data:` payloads of an SSE body, in order, `[DONE]` kept as the string. */
export function sseEvents(text: string): unknown[] {
  return text
    .split("\n\n")
    .filter((block) => block.trim() !== "")
    .map((block) => {
      const data = block
        .split("\n")
        .filter((line) => line.startsWith("data:"))
        .map((line) => line.slice(5).trimStart())
        .join("\n");
      return data === "[DONE]" ? data : JSON.parse(data);
    });
}

/** A chat request for a model with one user message. */
export function chatBody(model: string, content = "Say something short.", extra: Record<string, unknown> = {}) {
  return { model, messages: [{ role: "user", content }], ...extra };
}

/** The error body of a failed response. */
export async function errorOf(
  response: Response,
): Promise<{ message: string; type: string; code: string; param: string | null }> {
  const body = (await response.json()) as {
    error: { message: string; type: string; code: string; param: string | null };
  };
  return body.error;
}
