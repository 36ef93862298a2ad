import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { Agent, type Dispatcher } from "undici";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { SvcFlowError, TimeoutError, ToolInputError, UpstreamError } from "../src/errors.js";
import { createFetchUrlTool } from "../tools/fetch-url.js";

let server: Server;
let base: string;
// Per path: whether the server saw the client go away before the response was complete.
const closedEarly = new Map<string, boolean>();

async function rejection(promise: Promise<unknown>): Promise<SvcFlowError> {
  try {
    await promise;
  } catch (error) {
    if (error instanceof SvcFlowError) return error;
    throw error;
  }
  throw new Error("expected the call to fail");
}

async function streamMany(response: ServerResponse, chunk: Buffer, count: number) {
  for (let i = 0; i < count && !response.destroyed; i++) {
    if (!response.write(chunk)) await new Promise((resolve) => response.once("drain", resolve).once("close", resolve));
  }
  response.end();
}

function handle(request: IncomingMessage, response: ServerResponse) {
  const url = request.url ?? "/";
  response.on("close", () => closedEarly.set(url, !response.writableFinished));
  switch (url) {
    case "/hello":
      response.writeHead(200, { "content-type": "text/plain; charset=utf-8" }).end("hello, 世界");
      return;
    case "/json":
      response.writeHead(200, { "content-type": "application/json" }).end('{"ok":true}');
      return;
    case "/exact":
      response.writeHead(200, { "content-type": "text/plain" }).end("0123456789abcdef");
      return;
    case "/big":
      response.writeHead(200, { "content-type": "text/plain" });
      void streamMany(response, Buffer.alloc(64 * 1024, "x"), 1024);
      return;
    case "/slow-body":
      response.writeHead(200, { "content-type": "text/plain" });
      response.write("first part");
      return;
    case "/no-headers":
      return;
    case "/redirect":
      response.writeHead(302, { location: "/hello" }).end();
      return;
    case "/to-file":
      response.writeHead(302, { location: "file:///etc/passwd" }).end();
      return;
    case "/loop":
      response.writeHead(302, { location: "/loop" }).end();
      return;
    case "/png":
      response.writeHead(200, { "content-type": "image/png", "content-length": "6" }).end(Buffer.from([0x89, 0x50, 0x4e, 0x47, 0, 1]));
      return;
    case "/latin1":
      response.writeHead(200, { "content-type": "text/plain; charset=iso-8859-1" }).end(Buffer.from([0x63, 0x61, 0x66, 0xe9]));
      return;
    default:
      response.writeHead(404, { "content-type": "text/plain" }).end("no such page");
  }
}

beforeAll(async () => {
  server = createServer(handle);
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});

afterAll(async () => {
  server.closeAllConnections();
  await new Promise((resolve) => server.close(resolve));
});

describe("fetch_url tool", () => {
  const fetchUrl = createFetchUrlTool();

  it("returns the URL, status, content type and text", async () => {
    expect(await fetchUrl.invoke({ url: `${base}/hello` })).toBe(
      `URL: ${base}/hello\nStatus: 200 OK\nContent-Type: text/plain; charset=utf-8\n\nhello, 世界`,
    );
  });

  it("returns JSON bodies as text", async () => {
    expect(await fetchUrl.invoke({ url: `${base}/json` })).toMatch(/\n\n\{"ok":true\}$/);
  });

  it("returns a 404 as a result the model can read, not an error", async () => {
    expect(await fetchUrl.invoke({ url: `${base}/missing` })).toMatch(/^URL: .*\nStatus: 404 Not Found\n.*\n\nno such page$/);
  });

  it("stops reading at maxBytes, says so, and closes the connection", async () => {
    const text = await createFetchUrlTool({ maxBytes: 1000 }).invoke({ url: `${base}/big` });
    expect(text).toContain(`\n\n${"x".repeat(1000)}\n[Truncated: only the first 1000 B were read.]`);
    await expect.poll(() => closedEarly.get("/big")).toBe(true);
  });

  it("does not call a body that is exactly maxBytes long truncated", async () => {
    const text = await createFetchUrlTool({ maxBytes: 16 }).invoke({ url: `${base}/exact` });
    expect(text).toMatch(/\n\n0123456789abcdef$/);
  });

  it("calls a body one byte over maxBytes truncated", async () => {
    const text = await createFetchUrlTool({ maxBytes: 15 }).invoke({ url: `${base}/exact` });
    expect(text).toMatch(/\n\n0123456789abcde\n\[Truncated: only the first 15 B were read\.\]$/);
  });

  it("stops a response whose body stalls at the time limit", async () => {
    const error = await rejection(createFetchUrlTool({ timeoutMs: 300 }).invoke({ url: `${base}/slow-body` }));
    expect(error).toBeInstanceOf(TimeoutError);
    expect(error.message).toContain("took longer than 300 ms");
    await expect.poll(() => closedEarly.get("/slow-body")).toBe(true);
  });

  it("stops a server that never answers at the time limit", async () => {
    expect(await rejection(createFetchUrlTool({ timeoutMs: 300 }).invoke({ url: `${base}/no-headers` }))).toBeInstanceOf(
      TimeoutError,
    );
  });

  it("stops when the caller aborts", async () => {
    const controller = new AbortController();
    const pending = createFetchUrlTool().invoke({ url: `${base}/no-headers` }, { signal: controller.signal });
    setTimeout(() => controller.abort(), 50);
    await expect(pending).rejects.toThrow(/abort/i);
    await expect.poll(() => closedEarly.get("/no-headers")).toBe(true);
  });

  it("follows redirects and reports the final URL", async () => {
    expect(await fetchUrl.invoke({ url: `${base}/redirect` })).toMatch(new RegExp(`^URL: ${base}/hello\nStatus: 200`));
  });

  it("refuses a redirect to a non-http scheme", async () => {
    expect(await rejection(fetchUrl.invoke({ url: `${base}/to-file` }))).toMatchObject({ code: "url_refused" });
  });

  it("gives up on a redirect loop", async () => {
    expect(await rejection(fetchUrl.invoke({ url: `${base}/loop` }))).toMatchObject({ code: "too_many_redirects" });
  });

  it("describes a binary body instead of returning its bytes", async () => {
    expect(await fetchUrl.invoke({ url: `${base}/png` })).toMatch(/\[The body is binary \(image\/png of 6 B\); fetch_url returns text only\.\]$/);
  });

  it("decodes the charset the server names", async () => {
    expect(await fetchUrl.invoke({ url: `${base}/latin1` })).toMatch(/\n\ncafé$/);
  });

  it.each([
    ["file:///etc/passwd", "file:"],
    ["data:text/plain,hello", "data:"],
    ["ftp://example.com/file.txt", "ftp:"],
    ["javascript:alert(1)", "javascript:"],
    ["ws://example.com/socket", "ws:"],
    ["gopher://example.com/", "gopher:"],
  ])("refuses %s before any request", async (url, scheme) => {
    const error = await rejection(fetchUrl.invoke({ url }));
    expect(error).toBeInstanceOf(ToolInputError);
    expect(error.code).toBe("url_refused");
    expect(error.message).toContain(`"${scheme}" is refused: fetch_url fetches http:// and https:// URLs only`);
  });

  it("points a file: URL to read_file", async () => {
    expect((await rejection(fetchUrl.invoke({ url: "file:///tmp/a.txt" }))).message).toContain("use read_file");
  });

  it.each(["not a url", "example.com/page", "http//missing-colon"])("refuses %s as not a URL", async (url) => {
    expect(await rejection(fetchUrl.invoke({ url }))).toMatchObject({ code: "invalid_url" });
  });

  it("reports a refused connection as a fetch failure", async () => {
    const closed = createServer();
    await new Promise<void>((resolve) => closed.listen(0, "127.0.0.1", resolve));
    const port = (closed.address() as AddressInfo).port;
    await new Promise((resolve) => closed.close(resolve));
    const error = await rejection(fetchUrl.invoke({ url: `http://127.0.0.1:${port}/` }));
    expect(error).toBeInstanceOf(UpstreamError);
    expect(error.code).toBe("fetch_failed");
    expect(error.message).toContain("the server refused the connection");
  });

  it("sends requests through the dispatcher it was given", async () => {
    const seen: string[] = [];
    class RecordingAgent extends Agent {
      override dispatch(options: Dispatcher.DispatchOptions, handler: Dispatcher.DispatchHandler): boolean {
        seen.push(`${String(options.origin)}${options.path}`);
        return super.dispatch(options, handler);
      }
    }
    const agent = new RecordingAgent();
    try {
      await createFetchUrlTool({ dispatcher: agent }).invoke({ url: `${base}/hello` });
      expect(seen).toEqual([`${base}/hello`]);
    } finally {
      await agent.close();
    }
  });

  it("rejects bad limits when the tool is created", () => {
    expect(() => createFetchUrlTool({ timeoutMs: 0 })).toThrow("Expected timeoutMs to be a whole number >= 1, got 0.");
    expect(() => createFetchUrlTool({ maxBytes: -1 })).toThrow("Expected maxBytes");
  });
});
