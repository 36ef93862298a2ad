// The one download helper behind media links and reply image links, against a real HTTP server on port 0.
import { once } from "node:events";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { PrivateAddressError, SvcFlowError } from "../src/errors.js";
import { type FetchFailure, fetchWithLimits } from "../src/gateway/fetch-with-limits.js";
import { publicOnlyAgent } from "../src/net/public-only-agent.js";

/** Carries the failure the helper reported, so a test can read it back. */
class Reported extends SvcFlowError {
  constructor(readonly failure: FetchFailure) {
    super("reported", `reported ${failure.reason}`);
  }
}

const BODY = Buffer.from("twelve bytes");

let server: Server;
let base: string;
beforeAll(async () => {
  server = createServer((request, response) => {
    switch (request.url) {
      case "/body":
        response.writeHead(200, { "content-type": "text/plain" }).end(BODY);
        return;
      case "/moved":
        response.writeHead(302, { location: "/body" }).end();
        return;
      case "/declared-large":
        response.writeHead(200, { "content-length": "1000" });
        response.write(BODY);
        return;
      case "/streamed-large":
        // No length declared: only counting what arrives finds it too large.
        response.writeHead(200, { "content-type": "text/plain" });
        for (let index = 0; index < 10; index++) response.write(BODY);
        response.end();
        return;
      case "/html":
        response.writeHead(200, { "content-type": "text/html" }).end("<p>error page</p>");
        return;
      case "/busy":
        response.writeHead(503).end("later");
        return;
      case "/gone":
        response.writeHead(404).end("no");
        return;
      case "/trickle":
        response.writeHead(200);
        response.write("t");
        return;
    }
  });
  server.listen(0, "127.0.0.1");
  await once(server, "listening");
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(() => {
  server.closeAllConnections();
  server.close();
});

const limits = { maxBytes: 100, timeoutMs: 2_000, failure: (failure: FetchFailure) => new Reported(failure) };

async function failureOf(promise: Promise<unknown>): Promise<FetchFailure> {
  const error = await promise.then(
    () => undefined,
    (thrown: unknown) => thrown,
  );
  expect(error).toBeInstanceOf(Reported);
  return (error as Reported).failure;
}

describe("fetchWithLimits", () => {
  it("returns the body and its content type, following a redirect", async () => {
    const fetched = await fetchWithLimits(`${base}/moved`, limits);
    expect(fetched.bytes.equals(BODY)).toBe(true);
    expect(fetched.contentType).toBe("text/plain");
  });

  it("refuses a redirect when told to", async () => {
    expect((await failureOf(fetchWithLimits(`${base}/moved`, { ...limits, redirect: "error" }))).reason).toBe(
      "network",
    );
  });

  it("refuses a declared length over the cap before reading the body", async () => {
    expect(await failureOf(fetchWithLimits(`${base}/declared-large`, limits))).toEqual({
      reason: "too-large",
      bytes: 1000,
      declared: true,
    });
  });

  it("stops reading a body without a declared length once it passes the cap", async () => {
    const failure = await failureOf(fetchWithLimits(`${base}/streamed-large`, limits));
    expect(failure).toMatchObject({ reason: "too-large", declared: false });
    // Pieces arrive as the socket gives them: the count is at the first piece past the cap.
    expect((failure as { bytes: number }).bytes).toBeGreaterThan(100);
  });

  it("refuses a content type the caller does not take, and reads any type when it names none", async () => {
    expect(await failureOf(fetchWithLimits(`${base}/html`, { ...limits, contentTypes: /^image\//i }))).toEqual({
      reason: "content-type",
      contentType: "text/html",
    });
    expect((await fetchWithLimits(`${base}/html`, limits)).contentType).toBe("text/html");
  });

  it.each([
    { path: "/busy", status: 503, retryable: true },
    { path: "/gone", status: 404, retryable: false },
  ])("reports HTTP $status with retryable $retryable", async ({ path, status, retryable }) => {
    expect(await failureOf(fetchWithLimits(`${base}${path}`, limits))).toEqual({ reason: "status", status, retryable });
  });

  it("ends a body that trickles at the deadline, as a timeout", async () => {
    expect((await failureOf(fetchWithLimits(`${base}/trickle`, { ...limits, timeoutMs: 200 }))).reason).toBe("timeout");
  });

  it("keeps the caller's abort an AbortedError, not a timeout", async () => {
    const controller = new AbortController();
    const fetching = fetchWithLimits(`${base}/trickle`, { ...limits, signal: controller.signal });
    setTimeout(() => controller.abort(new Error("Received SIGINT")), 50);
    await expect(fetching).rejects.toMatchObject({ code: "aborted", message: /Received SIGINT/ });
  });

  it("reports a connection that fails as a network failure", async () => {
    const closed = createServer();
    closed.listen(0, "127.0.0.1");
    await once(closed, "listening");
    const port = (closed.address() as AddressInfo).port;
    closed.close();
    await once(closed, "close");
    expect((await failureOf(fetchWithLimits(`http://127.0.0.1:${port}/`, limits))).reason).toBe("network");
  });

  it("passes on a private address refused by a public-only dispatcher as that refusal", async () => {
    const fetching = fetchWithLimits(`${base}/body`, { ...limits, dispatcher: publicOnlyAgent() });
    await expect(fetching).rejects.toBeInstanceOf(PrivateAddressError);
  });
});
