import { request as httpRequest } from "node:http";
import { describe, expect, it } from "vitest";
import { assignRequestIds, deferRequestIds } from "../src/server/request-ids.js";
import { useGateway } from "./server-helpers.js";

const UUID_V4 = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;
const ID_NAMES = ["x-request-id", "x-svc-audit-id", "x-svc-backend-id"];

interface RawResponse {
  readonly status: number;
  /** Header names in the order they were sent, lower-cased. */
  readonly names: string[];
  readonly headers: Record<string, string>;
  readonly body: string;
}

// fetch hides the order of headers; node:http's rawHeaders keeps it.
function post(url: string, body: unknown, headers: Record<string, string> = {}): Promise<RawResponse> {
  return new Promise((resolve, reject) => {
    const request = httpRequest(
      url,
      { method: "POST", headers: { "content-type": "application/json", ...headers } },
      (response) => {
        let text = "";
        response.setEncoding("utf8");
        response.on("data", (chunk: string) => (text += chunk));
        response.on("end", () => {
          const names: string[] = [];
          const values: Record<string, string> = {};
          for (let index = 0; index < response.rawHeaders.length; index += 2) {
            const name = response.rawHeaders[index]!.toLowerCase();
            names.push(name);
            values[name] = response.rawHeaders[index + 1]!;
          }
          resolve({ status: response.statusCode!, names, headers: values, body: text });
        });
      },
    );
    request.on("error", reject);
    request.end(JSON.stringify(body));
  });
}

describe("request ids", () => {
  it("are UUID-shaped request ids, 32-hex audit ids and dashless compact ids, all distinct", () => {
    const seen = new Set<string>();
    for (let index = 0; index < 5000; index++) {
      const ids = deferRequestIds({} as never);
      expect(ids.requestId).toMatch(UUID_V4);
      expect(ids.auditId).toMatch(/^audit-[0-9a-f]{32}$/);
      expect(ids.compactId).toBe(ids.requestId.replaceAll("-", ""));
      seen.add(ids.requestId).add(ids.auditId);
    }
    expect(seen.size).toBe(10_000);
  });

  it("count up by one in their last twelve hex digits, shared by all three ids", () => {
    let previous = BigInt(`0x${deferRequestIds({} as never).requestId.slice(-12)}`);
    for (let index = 0; index < 2000; index++) {
      const ids = deferRequestIds({} as never);
      const tail = ids.requestId.slice(-12);
      expect(ids.auditId.slice(-12)).toBe(tail);
      expect(ids.compactId.slice(-12)).toBe(tail);
      const next = BigInt(`0x${tail}`);
      expect(next).toBe((previous + 1n) % 2n ** 48n);
      previous = next;
    }
  });

  it("are set as headers at once by assignRequestIds", () => {
    const headers = new Map<string, string>();
    const response = { setHeader: (name: string, value: string) => headers.set(name, value) };
    const ids = assignRequestIds(response as never);
    expect([...headers]).toEqual([
      ["x-request-id", ids.requestId],
      ["x-svc-audit-id", ids.auditId],
      ["x-svc-backend-id", "local-edge-1"],
    ]);
  });
});

describe("the chat route's id headers", () => {
  const gateway = useGateway({ config: { keys: [{ key: "sk-local-demo" }, { key: "sk-ids-rpm", rpm: 1 }] } });
  const url = () => `${gateway().baseURL}/chat/completions`;
  const chat = (content: string, extra: object = {}) => ({
    model: "beta-4o-mini",
    messages: [{ role: "user", content }],
    ...extra,
  });
  const auth = (key = "sk-local-demo") => ({ authorization: `Bearer ${key}` });

  it("come first on a JSON reply, name the model's backend, and give the completion its id", async () => {
    const response = await post(url(), chat("ids of a JSON reply"), auth());
    expect(response.status).toBe(200);
    expect(response.names.slice(0, 4)).toEqual([...ID_NAMES, "content-type"]);
    expect(response.headers["x-request-id"]).toMatch(UUID_V4);
    expect(response.headers["x-svc-backend-id"]).toBe("local-beta-1");
    expect(JSON.parse(response.body).id).toBe(`chatcmpl-${response.headers["x-request-id"]!.replaceAll("-", "")}`);
  });

  it("come first on a stream and match the id in every chunk", async () => {
    const response = await post(url(), chat("ids of a stream", { stream: true }), auth());
    expect(response.names.slice(0, 6)).toEqual([...ID_NAMES, "content-type", "cache-control", "x-accel-buffering"]);
    const id = `chatcmpl-${response.headers["x-request-id"]!.replaceAll("-", "")}`;
    const events = response.body.split("\n\n").filter((event) => event.startsWith("data: {"));
    expect(events.length).toBeGreaterThan(2);
    for (const event of events) expect(JSON.parse(event.slice("data: ".length)).id).toBe(id);
  });

  it("come before an error's own headers, with the edge backend before the model is known", async () => {
    const unknown = await post(url(), chat("no key"), { authorization: "Bearer sk-nobody" });
    expect(unknown.status).toBe(401);
    expect(unknown.names.slice(0, 4)).toEqual([...ID_NAMES, "x-should-retry"]);
    expect(unknown.headers["x-svc-backend-id"]).toBe("local-edge-1");

    expect((await post(url(), chat("first"), auth("sk-ids-rpm"))).status).toBe(200);
    const limited = await post(url(), chat("second"), auth("sk-ids-rpm"));
    expect(limited.status).toBe(429);
    expect(limited.names.slice(0, 5)).toEqual([...ID_NAMES, "retry-after", "retry-after-ms"]);
  });

  it("are replayed with a stored response, the replay marked", async () => {
    for (const stream of [false, true]) {
      const body = chat(`replayed ${stream}`, { stream });
      const keyed = { ...auth(), "idempotency-key": `ids-replay-${stream}` };
      const first = await post(url(), body, keyed);
      const again = await post(url(), body, keyed);
      expect(again.body).toBe(first.body);
      for (const name of ID_NAMES) expect(again.headers[name]).toBe(first.headers[name]);
      expect(again.names.slice(0, 4)).toEqual([...ID_NAMES, "idempotent-replayed"]);
    }
  });
});
