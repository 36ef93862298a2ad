import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { Agent, type Dispatcher } from "undici";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { SvcFlowError, TimeoutError, ToolInputError, UpstreamError } from "../src/errors.js";
import { createFetchUrlTool, type FetchUrlToolOptions } from "../tools/fetch-url.js";
import { createTools } from "../tools/index.js";

let server: Server;
let base: string;
let port: number;
// Every path the server was asked for, in order, and the connections it accepted.
const seen: string[] = [];
let connections = 0;
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
    if (response.write(chunk)) continue;
    // Both listeners go once either fires, or a close listener would pile up per drain.
    await new Promise<void>((resolve) => {
      const done = () => {
        response.off("drain", done).off("close", done);
        resolve();
      };
      response.once("drain", done).once("close", done);
    });
  }
  response.end();
}

function handle(request: IncomingMessage, response: ServerResponse) {
  const url = request.url ?? "/";
  seen.push(url);
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
    case "/to-metadata":
      response.writeHead(302, { location: "http://169.254.169.254/latest/meta-data/" }).end();
      return;
    case "/to-loopback":
      response.writeHead(302, { location: `http://127.0.0.1:${port}/hello` }).end();
      return;
    case "/loop":
      response.writeHead(302, { location: "/loop" }).end();
      return;
    case "/png":
      response
        .writeHead(200, { "content-type": "image/png", "content-length": "6" })
        .end(Buffer.from([0x89, 0x50, 0x4e, 0x47, 0, 1]));
      return;
    case "/latin1":
      response
        .writeHead(200, { "content-type": "text/plain; charset=iso-8859-1" })
        .end(Buffer.from([0x63, 0x61, 0x66, 0xe9]));
      return;
    default:
      response.writeHead(404, { "content-type": "text/plain" }).end("no such page");
  }
}

beforeAll(async () => {
  server = createServer(handle).on("connection", () => connections++);
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  port = (server.address() as AddressInfo).port;
  base = `http://127.0.0.1:${port}`;
});

afterAll(async () => {
  server.closeAllConnections();
  await new Promise((resolve) => server.close(resolve));
});

/** The tool as these tests need it: allowed to fetch the test server on 127.0.0.1. */
function localTool(options: FetchUrlToolOptions = {}) {
  return createFetchUrlTool({ allowPrivateNetwork: true, ...options });
}

describe("fetch_url tool", () => {
  const fetchUrl = localTool();

  it("returns the URL, status, content type and text", async () => {
    expect(await fetchUrl.invoke({ url: `${base}/hello` })).toBe(
      `URL: ${base}/hello\nStatus: 200 OK\nContent-Type: text/plain; charset=utf-8\n\nhello, 世界`,
    );
  });

  it("returns JSON bodies as text", async () => {
    expect(await fetchUrl.invoke({ url: `${base}/json` })).toMatch(/\n\n\{"ok":true\}$/);
  });

  it("returns a 404 as a result the model can read, not an error", async () => {
    expect(await fetchUrl.invoke({ url: `${base}/missing` })).toMatch(
      /^URL: .*\nStatus: 404 Not Found\n.*\n\nno such page$/,
    );
  });

  it("stops reading at maxBytes, says so, and closes the connection", async () => {
    const text = await localTool({ maxBytes: 1000 }).invoke({ url: `${base}/big` });
    expect(text).toContain(`\n\n${"x".repeat(1000)}\n[Truncated: only the first 1000 B were read.]`);
    await expect.poll(() => closedEarly.get("/big")).toBe(true);
  });

  it("does not call a body that is exactly maxBytes long truncated", async () => {
    const text = await localTool({ maxBytes: 16 }).invoke({ url: `${base}/exact` });
    expect(text).toMatch(/\n\n0123456789abcdef$/);
  });

  it("calls a body one byte over maxBytes truncated", async () => {
    const text = await localTool({ maxBytes: 15 }).invoke({ url: `${base}/exact` });
    expect(text).toMatch(/\n\n0123456789abcde\n\[Truncated: only the first 15 B were read\.\]$/);
  });

  it("stops a response whose body stalls at the time limit", async () => {
    const error = await rejection(localTool({ timeoutMs: 300 }).invoke({ url: `${base}/slow-body` }));
    expect(error).toBeInstanceOf(TimeoutError);
    expect(error.message).toContain("took longer than 300 ms");
    await expect.poll(() => closedEarly.get("/slow-body")).toBe(true);
  });

  it("stops a server that never answers at the time limit", async () => {
    expect(await rejection(localTool({ timeoutMs: 300 }).invoke({ url: `${base}/no-headers` }))).toBeInstanceOf(
      TimeoutError,
    );
  });

  it("stops when the caller aborts", async () => {
    const controller = new AbortController();
    const pending = localTool().invoke({ url: `${base}/no-headers` }, { signal: controller.signal });
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
    expect(await fetchUrl.invoke({ url: `${base}/png` })).toMatch(
      /\[The body is binary \(image\/png of 6 B\); fetch_url returns text only\.\]$/,
    );
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
      await localTool({ dispatcher: agent }).invoke({ url: `${base}/hello` });
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

describe("fetch_url and private networks", () => {
  // A short limit, so a guard that let a request through to an unroutable address fails fast.
  const guarded = createFetchUrlTool({ timeoutMs: 3000 });

  it.each([
    ["http://127.0.0.1:{port}/hello", "127.0.0.1 is loopback"],
    ["http://localhost:{port}/hello", /localhost resolves to (127\.0\.0\.1|::1), which is loopback/],
    ["http://[::1]:{port}/hello", "[::1] is loopback"],
    ["http://0.0.0.0:{port}/hello", "0.0.0.0 is unspecified"],
    ["http://[::]:{port}/hello", "[::] is unspecified"],
    ["http://169.254.169.254/latest/meta-data/", "169.254.169.254 is link-local"],
    ["http://10.1.2.3/", "10.1.2.3 is private"],
    ["https://192.168.1.1/admin", "192.168.1.1 is private"],
    ["http://100.64.0.1/", "100.64.0.1 is carrier-grade NAT"],
    ["http://[::ffff:127.0.0.1]:{port}/hello", "[::ffff:7f00:1] is loopback"],
    ["http://2130706433:{port}/hello", "127.0.0.1 is loopback"],
    ["http://0x7f.1:{port}/hello", "127.0.0.1 is loopback"],
    ["http://[fd00::1]/", "[fd00::1] is unique-local"],
    ["http://[fe80::1]/", "[fe80::1] is link-local"],
  ])("refuses %s by default, before connecting", async (template, reason) => {
    const before = { connections, requests: seen.length };
    const error = await rejection(guarded.invoke({ url: template.replace("{port}", String(port)) }));
    expect(error).toBeInstanceOf(ToolInputError);
    expect(error.code).toBe("url_refused");
    expect(error.message).toMatch(/^fetch_url does not fetch private network addresses \(/);
    expect(error.message).toMatch(reason);
    expect(error.message).toMatch(
      /\. To allow it, create the tool with allowPrivateNetwork: true \(in a workflow file: .*--allow-private-network\)\.$/,
    );
    expect({ connections, requests: seen.length }).toEqual(before);
  });

  it("refuses a redirect to the cloud metadata address", async () => {
    // An own dispatcher resolves "localhost" itself, so the first hop gets through and only the redirect is checked.
    const agent = new Agent();
    try {
      const tool = createFetchUrlTool({ dispatcher: agent, timeoutMs: 3000 });
      const error = await rejection(tool.invoke({ url: `http://localhost:${port}/to-metadata` }));
      expect(error).toMatchObject({ code: "url_refused" });
      expect(error.message).toContain("(169.254.169.254 is link-local)");
    } finally {
      await agent.close();
    }
  });

  it("refuses a redirect to a loopback address without requesting it", async () => {
    const agent = new Agent();
    try {
      const before = seen.length;
      const error = await rejection(
        createFetchUrlTool({ dispatcher: agent }).invoke({ url: `http://localhost:${port}/to-loopback` }),
      );
      expect(error.message).toContain("(127.0.0.1 is loopback)");
      expect(seen.slice(before)).toEqual(["/to-loopback"]);
    } finally {
      await agent.close();
    }
  });

  it("still refuses a private IP literal when given its own dispatcher", async () => {
    const origins: string[] = [];
    const agent = new Agent();
    const recording = agent.compose((dispatch) => (options, handler) => {
      origins.push(String(options.origin));
      return dispatch(options, handler);
    });
    try {
      const error = await rejection(createFetchUrlTool({ dispatcher: recording }).invoke({ url: `${base}/hello` }));
      expect(error).toMatchObject({ code: "url_refused" });
      expect(origins).toEqual([]);
    } finally {
      await agent.close();
    }
  });

  it("fetches loopback by address and by name with allowPrivateNetwork: true", async () => {
    const tool = createFetchUrlTool({ allowPrivateNetwork: true });
    expect(await tool.invoke({ url: `${base}/hello` })).toMatch(/\nStatus: 200 OK\n/);
    expect(await tool.invoke({ url: `http://localhost:${port}/hello` })).toMatch(/\n\nhello, 世界$/);
  });

  it("takes allowPrivateNetwork from the tool context", async () => {
    const [refusing] = createTools(["fetch_url"]);
    const [allowed] = createTools(["fetch_url"], { allowPrivateNetwork: true });
    expect(await rejection(refusing!.invoke({ url: `${base}/hello` }))).toMatchObject({ code: "url_refused" });
    expect(await allowed!.invoke({ url: `${base}/hello` })).toMatch(/\nStatus: 200 OK\n/);
  });

  it("tells the model private addresses are refused, unless they are allowed", () => {
    expect(guarded.description).toContain(
      "Private network addresses (localhost, 10.x, 192.168.x, 169.254.x, ...) are refused.",
    );
    expect(createFetchUrlTool({ allowPrivateNetwork: true }).description).not.toContain("Private network");
  });

  it("names only the host in the refusal, never credentials or query", async () => {
    const error = await rejection(
      guarded.invoke({ url: "http://admin:sk-live-abcdef123456@10.0.0.7/?key=sk-live-abcdef123456" }),
    );
    expect(error.message).toContain("(10.0.0.7 is private)");
    expect(error.message).not.toMatch(/admin|sk-live|abcdef/);
  });
});
