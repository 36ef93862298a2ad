import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { Agent, buildConnector } from "undici";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { isLoopbackHost } from "../src/net/is-loopback-host.js";
import { publicOnlyConnect } from "../src/net/public-only-agent.js";
import { fetchImage } from "../src/server/fetch-image.js";
import { startLocalGateway, type LocalGatewayOptions } from "../src/server/index.js";
import { makePng } from "./chat-media.js";
import { postJson } from "./server-helpers.js";

/** A server on 127.0.0.1 that counts what reaches it. */
interface CountingServer {
  readonly server: Server;
  readonly port: number;
  readonly paths: string[];
  connections: number;
}

async function countingServer(
  handle: (request: IncomingMessage, response: ServerResponse) => void,
): Promise<CountingServer> {
  const paths: string[] = [];
  const counting: { server: Server; port: number; paths: string[]; connections: number } = {
    server: createServer((request, response) => {
      paths.push(request.url ?? "/");
      handle(request, response);
    }),
    port: 0,
    paths,
    connections: 0,
  };
  counting.server.on("connection", () => counting.connections++);
  await new Promise<void>((resolve) => counting.server.listen(0, "127.0.0.1", resolve));
  counting.port = (counting.server.address() as AddressInfo).port;
  return counting;
}

async function closeServer({ server }: CountingServer): Promise<void> {
  server.closeAllConnections();
  await new Promise((resolve) => server.close(resolve));
}

const png = makePng(64, 32);
let images: CountingServer;
let target: CountingServer;

beforeAll(async () => {
  target = await countingServer((_request, response) =>
    response.writeHead(200, { "content-type": "image/png" }).end(png),
  );
  images = await countingServer((request, response) => {
    const redirect = /^\/redirect\?to=(.*)$/.exec(request.url ?? "")?.[1];
    if (redirect !== undefined) {
      response.writeHead(302, { location: decodeURIComponent(redirect) }).end();
      return;
    }
    response.writeHead(200, { "content-type": "image/png" }).end(png);
  });
});

afterAll(async () => {
  await closeServer(images);
  await closeServer(target);
});

/** The text of a beta-4o reply to "What is this?" with `url` linked, from a gateway started with `options`. */
async function describeLinked(url: string, options: LocalGatewayOptions, connectTo?: string): Promise<string> {
  const gateway = await startLocalGateway({ port: 0, ...options });
  try {
    const port = new URL(gateway.baseURL).port;
    const base = connectTo === undefined ? gateway.baseURL : `http://${connectTo}:${port}/v1`;
    const content = [
      { type: "text", text: "What is this?" },
      { type: "image_url", image_url: { url } },
    ];
    const response = await postJson(`${base}/chat/completions`, {
      model: "beta-4o",
      messages: [{ role: "user", content }],
    });
    expect(response.status).toBe(200);
    const body = (await response.json()) as { choices: Array<{ message: { content: string } }> };
    return body.choices[0]!.message.content;
  } finally {
    await gateway.close();
  }
}

/** What reached `server` while `run` ran. */
async function reached(server: CountingServer, run: () => Promise<unknown>) {
  const before = { connections: server.connections, requests: server.paths.length };
  await run();
  return { connections: server.connections - before.connections, requests: server.paths.length - before.requests };
}

describe("linked images and private addresses in the local gateway", () => {
  it("describes an image served on 127.0.0.1 when bound to loopback (the default)", async () => {
    let text = "";
    const seen = await reached(
      images,
      async () => (text = await describeLinked(`http://127.0.0.1:${images.port}/photo.png`, {})),
    );
    expect(text).toContain("64x32 PNG");
    expect(seen.requests).toBe(1);
  });

  it("describes an image served on 127.0.0.1 with allowPrivateImageURLs: true", async () => {
    const text = await describeLinked(`http://127.0.0.1:${images.port}/photo.png`, { allowPrivateImageURLs: true });
    expect(text).toContain("64x32 PNG");
  });

  it.each([
    ["by address", "http://127.0.0.1:{port}/photo.png"],
    ["by a name that resolves to loopback", "http://localhost:{port}/photo.png"],
    ["in IPv4-mapped form", "http://[::ffff:127.0.0.1]:{port}/photo.png"],
  ])(
    "with allowPrivateImageURLs: false, does not fetch an image on loopback %s and says it could not",
    async (_how, template) => {
      const url = template.replace("{port}", String(images.port));
      let text = "";
      const seen = await reached(
        images,
        async () => (text = await describeLinked(url, { allowPrivateImageURLs: false })),
      );
      expect(text).toContain(`I could not fetch the image from ${url}`);
      expect(seen).toEqual({ connections: 0, requests: 0 });
    },
  );

  it("refuses private image URLs by default when bound to every interface (0.0.0.0)", async () => {
    let text = "";
    const url = `http://127.0.0.1:${images.port}/photo.png`;
    const seen = await reached(
      images,
      async () => (text = await describeLinked(url, { host: "0.0.0.0" }, "127.0.0.1")),
    );
    expect(text).toContain(`I could not fetch the image from ${url}`);
    expect(seen).toEqual({ connections: 0, requests: 0 });
  });

  it("fetches private image URLs when bound to every interface with allowPrivateImageURLs: true", async () => {
    const url = `http://127.0.0.1:${images.port}/photo.png`;
    expect(await describeLinked(url, { host: "0.0.0.0", allowPrivateImageURLs: true }, "127.0.0.1")).toContain(
      "64x32 PNG",
    );
  });
});

describe("isLoopbackHost, which sets the default of allowPrivateImageURLs", () => {
  it.each(["127.0.0.1", "127.8.9.10", "::1", "[::1]", "localhost", "LocalHost"])("calls %s loopback", (host) => {
    expect(isLoopbackHost(host)).toBe(true);
  });

  it.each(["0.0.0.0", "::", "[::]", "192.168.1.20", "10.0.0.5", "8.8.8.8", "2606:4700::1111", "gateway.example.com"])(
    "does not call %s loopback",
    (host) => {
      expect(isLoopbackHost(host)).toBe(false);
    },
  );
});

describe("fetchImage and redirects to private addresses", () => {
  // The images server stands in for a public host: this dispatcher connects to its origin as is and
  // judges every other origin with the public-only connector, as the public-only Agent does every hop.
  const plainConnect = buildConnector({});
  let dispatcher: Agent;
  beforeAll(() => {
    dispatcher = new Agent({
      connect: (options, callback) =>
        options.port === String(images.port) ? plainConnect(options, callback) : publicOnlyConnect(options, callback),
    });
  });
  afterAll(() => dispatcher.close());

  const limits = () => ({ maxBytes: 1024 * 1024, allowPrivateAddresses: false, dispatcher });
  const redirectTo = (location: string) =>
    `http://127.0.0.1:${images.port}/redirect?to=${encodeURIComponent(location)}`;

  it("follows a redirect to an address the dispatcher allows", async () => {
    expect(await fetchImage(redirectTo(`http://127.0.0.1:${images.port}/photo.png`), limits())).toEqual(png);
  });

  it.each([
    ["a loopback address", "http://127.0.0.1:{port}/photo.png"],
    ["a name that resolves to loopback", "http://localhost:{port}/photo.png"],
    ["an IPv4-mapped loopback address", "http://[::ffff:127.0.0.1]:{port}/photo.png"],
  ])("refuses a redirect to %s without reaching it", async (_what, template) => {
    let bytes: Buffer | undefined = Buffer.alloc(0);
    const seen = await reached(
      target,
      async () => (bytes = await fetchImage(redirectTo(template.replace("{port}", String(target.port))), limits())),
    );
    expect(bytes).toBeUndefined();
    expect(seen).toEqual({ connections: 0, requests: 0 });
  });

  it("reads a body exactly maxBytes long and drops one a byte longer", async () => {
    const url = `http://127.0.0.1:${images.port}/photo.png`;
    expect(await fetchImage(url, { maxBytes: png.length, allowPrivateAddresses: true })).toEqual(png);
    expect(await fetchImage(url, { maxBytes: png.length - 1, allowPrivateAddresses: true })).toBeUndefined();
  });
});
